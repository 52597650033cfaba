/* evalsite tables: click a column header to sort (again to reverse), type in
 * a table's filter box to show only rows containing the text.  Cells may carry
 * data-sort (a number, or "" for undefined values, which sort first).
 * Works on any <table class="sortable"> and any input.table-filter. */
(function () {
  'use strict';

  function cellKey(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ''; }
    var sort = cell.getAttribute('data-sort');
    return sort !== null ? sort : cell.textContent.trim();
  }

  function compare(a, b) {
    var na = a === '' ? -Infinity : Number(a);
    var nb = b === '' ? -Infinity : Number(b);
    if (!isNaN(na) && !isNaN(nb)) { return na < nb ? -1 : (na > nb ? 1 : 0); }
    return String(a).localeCompare(String(b), undefined, {numeric: true, sensitivity: 'base'});
  }

  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).filter(function (r) { return !r.classList.contains('empty'); });
    var ascending = th.getAttribute('aria-sort') !== 'ascending';
    var keyed = rows.map(function (row, position) { return {row: row, key: cellKey(row, index), position: position}; });
    keyed.sort(function (x, y) {
      var c = compare(x.key, y.key);
      if (c === 0) { c = x.position - y.position; return c; }
      return ascending ? c : -c;
    });
    var headers = table.tHead.rows[0].cells;
    for (var i = 0; i < headers.length; i++) { headers[i].removeAttribute('aria-sort'); }
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    var fragment = document.createDocumentFragment();
    keyed.forEach(function (item) { fragment.appendChild(item.row); });
    body.appendChild(fragment);
  }

  function makeSortable(table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (th, index) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener('click', function () { sortBy(table, index, th); });
    });
  }

  function updateCount(table, shown, total) {
    var outputs = document.querySelectorAll('output.table-count[data-table="' + table.id + '"]');
    for (var i = 0; i < outputs.length; i++) {
      outputs[i].textContent = shown === total ? total + ' rows' : shown + ' of ' + total + ' rows';
    }
  }

  function makeFilter(input) {
    var table = document.getElementById(input.getAttribute('data-table'));
    if (!table || !table.tBodies.length) { return; }
    input.addEventListener('input', function () {
      var needle = input.value.trim().toLowerCase();
      var rows = table.tBodies[0].rows;
      var shown = 0;
      var total = 0;
      for (var i = 0; i < rows.length; i++) {
        if (rows[i].classList.contains('empty')) { continue; }
        total += 1;
        var match = !needle || rows[i].textContent.toLowerCase().indexOf(needle) !== -1;
        rows[i].hidden = !match;
        if (match) { shown += 1; }
      }
      updateCount(table, shown, total);
    });
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), makeSortable);
    Array.prototype.forEach.call(document.querySelectorAll('input.table-filter'), makeFilter);
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
