/* evalsite tables: click a column header to sort (again to reverse), type in
 * a table's filter box to show only rows containing the text.  Cells may carry
 * data-sort (a number, or "" for undefined values, which sort first).
 * Works on any <table class="sortable"> and any input.table-filter; also one-click row views
 * (.table-views), links that open a table on a view or filter, and #row deep links. */
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
    var column = table.getAttribute('data-filter-column');
    var header = column !== null && table.tHead ? table.tHead.rows[0].cells[Number(column)] : null;
    var where = header ? ' (filtered in ' + header.textContent.trim() + ')' : '';
    for (var i = 0; i < outputs.length; i++) {
      outputs[i].textContent = shown === total ? total + ' rows' : shown + ' of ' + total + ' rows' + where;
    }
  }

  /* Whether a row holds the filter text: anywhere in the row, or, when the table is filtered in
   * one column (a failure-reason link: data-filter-column), as one of that cell's "; " items
   * ("match='I' ×2" counts as "match='I'"). */
  function holds(table, row, needle) {
    if (!needle) { return true; }
    var column = table.getAttribute('data-filter-column');
    if (column === null) { return row.textContent.toLowerCase().indexOf(needle) !== -1; }
    var cell = row.cells[Number(column)];
    if (!cell) { return false; }
    return cell.textContent.split('; ').some(function (item) {
      return item.trim().replace(/ \u00d7\d+$/, '').toLowerCase() === needle;
    });
  }

  function makeFilter(input) {
    var table = document.getElementById(input.getAttribute('data-table'));
    if (!table || !table.tBodies.length) { return; }
    input.addEventListener('input', function () {
      table.removeAttribute('data-filter-column');  // typed text searches the whole row
      var needle = input.value.trim().toLowerCase();
      var rows = table.tBodies[0].rows;
      var shown = 0;
      var total = 0;
      for (var i = 0; i < rows.length; i++) {
        if (rows[i].classList.contains('empty')) { continue; }
        total += 1;
        var view = table.getAttribute('data-view');
        var words = view ? view.split(' ') : [];
        var inView = !words.length || words.some(function (w) { return rows[i].classList.contains(w); });
        var match = inView && holds(table, rows[i], needle);
        rows[i].hidden = !match;
        if (match) { shown += 1; }
      }
      updateCount(table, shown, total);
    });
  }

  /* One-click views: a button shows the rows whose classes include any of its data-match
   * words ("" = every row).  The filter box still narrows within the view. */
  function applyView(table, match) {
    var words = match ? match.split(' ') : [];
    var rows = table.tBodies[0].rows;
    var shown = 0;
    var total = 0;
    var input = document.querySelector('input.table-filter[data-table="' + table.id + '"]');
    var needle = input ? input.value.trim().toLowerCase() : '';
    for (var i = 0; i < rows.length; i++) {
      if (rows[i].classList.contains('empty')) { continue; }
      total += 1;
      var inView = !words.length || words.some(function (w) { return rows[i].classList.contains(w); });
      var match2 = inView && holds(table, rows[i], needle);
      rows[i].hidden = !match2;
      if (match2) { shown += 1; }
    }
    table.setAttribute('data-view', match);
    updateCount(table, shown, total);
    var buttons = document.querySelectorAll('button.table-view[data-table="' + table.id + '"]');
    for (var j = 0; j < buttons.length; j++) {
      buttons[j].setAttribute('aria-pressed', buttons[j].getAttribute('data-match') === match ? 'true' : 'false');
    }
  }

  function openAround(element) {
    for (var node = element; node; node = node.parentElement) {
      if (node.tagName === 'DETAILS') { node.open = true; }
    }
  }

  function makeViews(group) {
    var table = document.getElementById(group.getAttribute('data-table'));
    if (!table || !table.tBodies.length) { return; }
    group.hidden = false;
    Array.prototype.forEach.call(group.querySelectorAll('button.table-view'), function (button) {
      button.addEventListener('click', function () { applyView(table, button.getAttribute('data-match')); });
    });
  }

  /* A link into a table (href="#<table block>") that picks a view (data-view-link) or a
   * filter text (data-filter): opens the table's collapsed section and applies it. */
  function tableOf(link) {
    var block = document.getElementById(link.getAttribute('href').slice(1));
    return block ? block.querySelector('table') : null;
  }

  function makeTableLink(link) {
    link.addEventListener('click', function () {
      var table = tableOf(link);
      if (!table) { return; }
      openAround(table);
      var input = document.querySelector('input.table-filter[data-table="' + table.id + '"]');
      if (link.hasAttribute('data-filter-column')) {
        table.setAttribute('data-filter-column', link.getAttribute('data-filter-column'));
      } else {
        table.removeAttribute('data-filter-column');
      }
      if (link.hasAttribute('data-filter')) {
        if (input) { input.value = link.getAttribute('data-filter'); }
        applyView(table, '');
      } else {
        if (input) { input.value = ''; }
        applyView(table, link.getAttribute('data-view-link'));
      }
    });
  }

  /* Deep links: opening page.html#<row id> opens the row's collapsed section, clears a view or
   * filter that hides it, and scrolls it into view (CSS :target highlights it). */
  function revealTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    if (!id) { return; }
    var target = document.getElementById(id);
    if (!target) { return; }
    openAround(target);
    if (target.tagName === 'TR' && target.hidden) {
      var table = target.closest('table');
      var input = document.querySelector('input.table-filter[data-table="' + table.id + '"]');
      if (input) { input.value = ''; }
      table.removeAttribute('data-filter-column');
      applyView(table, '');
    }
    target.scrollIntoView({block: 'center'});
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), makeSortable);
    Array.prototype.forEach.call(document.querySelectorAll('input.table-filter'), makeFilter);
    Array.prototype.forEach.call(document.querySelectorAll('.table-views'), makeViews);
    Array.prototype.forEach.call(document.querySelectorAll('a[data-view-link], a[data-filter]'), makeTableLink);
    window.addEventListener('hashchange', revealTarget);
    revealTarget();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
