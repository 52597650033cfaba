/* evalsite charts: render every Plotly figure whose JSON sits in a
 * <script type="application/json"> block.  No inline script anywhere, so pages
 * work under a strict Content-Security-Policy (script-src 'self').
 * The figure JSON is plain data: JSON.parse never executes anything. */
(function () {
  'use strict';

  function render(el) {
    var source = document.getElementById(el.getAttribute('data-figure'));
    if (!source) { return; }
    var fig;
    try {
      fig = JSON.parse(source.textContent);
    } catch (err) {
      el.textContent = 'This chart could not be read.';
      return;
    }
    var layout = fig.layout || {};
    layout.autosize = true;
    window.Plotly.newPlot(el, fig.data || [], layout, {
      responsive: true,
      displaylogo: false,
      modeBarButtonsToRemove: ['sendDataToCloud', 'select2d', 'lasso2d']
    });
    el.setAttribute('data-rendered', 'true');
  }

  function start() {
    var charts = document.querySelectorAll('div.chart[data-figure]');
    if (!charts.length) { return; }
    if (!window.Plotly) {
      for (var i = 0; i < charts.length; i++) {
        charts[i].textContent = 'Charts need assets/plotly.min.js, which did not load. The tables on this page hold the same numbers.';
      }
      return;
    }
    for (var j = 0; j < charts.length; j++) { render(charts[j]); }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
