/* evalsite leaderboard: a click on a cell of the pairwise heatmap opens that pair's page.
 * The link is the cell's customdata, a relative "pairs/<slug>/index.html" written by the
 * generator; anything else is ignored.  The table under the chart has the same links. */
(function () {
  'use strict';
  var PAIR = /^pairs\/[a-z0-9-]+\/index\.html$/;

  function attach(el) {
    if (typeof el.on !== 'function') { return false; }
    el.on('plotly_click', function (event) {
      var point = event && event.points && event.points[0];
      var href = point && point.customdata;
      if (typeof href === 'string' && PAIR.test(href)) { window.location.href = href; }
    });
    return true;
  }

  // charts.js draws charts lazily (near the viewport or when idle) and says so with an event
  function start() {
    var charts = document.querySelectorAll('div.chart[data-cell-links]');
    Array.prototype.forEach.call(charts, function (el) {
      if (el.getAttribute('data-rendered') === 'true' && attach(el)) { return; }
      el.addEventListener('evalsite:chart-drawn', function () { attach(el); }, { once: true });
    });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
