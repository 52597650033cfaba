/* evalsite charts: render every Plotly figure whose JSON sits in a
 * <script type="application/json"> block.  No inline script anywhere, so pages
 * work under a strict Content-Security-Policy (script-src 'self').
 * The figure JSON is plain data: JSON.parse never executes anything.
 *
 * Text first, charts when they are needed: a page names the Plotly bundle in
 * this script's data-plotly attribute instead of loading it up front.  Charts
 * within reach of the first screen load the bundle at once and are drawn; the
 * others are drawn as they come near the viewport (IntersectionObserver) and,
 * one at a time, whenever the browser is idle once the page has loaded and
 * settled, so every chart is drawn without the reader scrolling.  A page that
 * loads plotly.min.js itself (a plain <script> before this one) works too. */
(function () {
  'use strict';

  var self = document.currentScript;
  var bundle = self ? self.getAttribute('data-plotly') : null;
  var plotlyState = 'none';  // none | loading | failed
  var waiting = [];
  var SETTLE_MS = 400;

  // Below this width a forest plot's "metric · arm" and "left vs right" labels
  // take two lines and the text gets smaller, so the plot area keeps a readable
  // width on phones.  Labels are entity-escaped already; only <br> is added.
  var NARROW = 560;

  function splitLabel(value) {
    return typeof value === 'string' ? value.replace(' \u00b7 ', '<br>').replace(' vs ', '<br>vs ') : value;
  }

  // Wrap an (entity-escaped) legend name into lines of at most `limit` visible
  // characters: at a space when there is one, else anywhere but inside an entity.
  function wrapName(name, limit) {
    var tokens = name.match(/&#?\w+;|[\s\S]/g) || [];
    var lines = [];
    var line = [];
    var lastSpace = -1;
    tokens.forEach(function (token) {
      if (token === ' ') { lastSpace = line.length; }
      line.push(token);
      if (line.length > limit) {
        var cut = lastSpace > 0 ? lastSpace : limit;
        lines.push(line.slice(0, cut).join(''));
        line = line.slice(lastSpace > 0 ? cut + 1 : cut);
        lastSpace = line.lastIndexOf(' ');
      }
    });
    lines.push(line.join(''));
    return lines.join('<br>');
  }

  function fitNarrow(el, fig, layout) {
    if (el.clientWidth >= NARROW) { return; }
    var font = layout.font || {};
    layout.font = {family: font.family, color: font.color, size: 11};
    var limit = Math.max(16, Math.floor((el.clientWidth - 60) / 7));
    (fig.data || []).forEach(function (trace) {
      if (typeof trace.name === 'string' && trace.name.length > limit) { trace.name = wrapName(trace.name, limit); }
    });
    var xaxis = layout.xaxis;
    if (xaxis && xaxis.type !== 'category') {
      // few, short ticks on a phone, so labels such as "+20 pp" never overprint (the title names the unit)
      xaxis.nticks = 3;
      xaxis.ticksuffix = '';
    }
    // the axis title is centred on the plot area, which the y labels push right: wrap it to that width
    var titleLimit = Math.max(12, Math.floor((el.clientWidth - 150) / 7));
    if (xaxis && xaxis.title && typeof xaxis.title.text === 'string' && xaxis.title.text.length > titleLimit) {
      xaxis.title.text = wrapName(xaxis.title.text, titleLimit);
      layout.margin = layout.margin || {};
      layout.margin.b = (layout.margin.b || 60) + 16;
      if (layout.height) { layout.height += 16; }
    }
    var yaxis = layout.yaxis;
    if (!yaxis || yaxis.type !== 'category') { return; }
    var split = false;
    (fig.data || []).forEach(function (trace) {
      if (!trace.y) { return; }
      trace.y = trace.y.map(function (value) {
        var out = splitLabel(value);
        split = split || out !== value;
        return out;
      });
    });
    if (yaxis.categoryarray) { yaxis.categoryarray = yaxis.categoryarray.map(splitLabel); }
    if (split && layout.height) { layout.height = Math.round(layout.height * 1.4); }
  }

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
    fitNarrow(el, fig, layout);
    var drawn = window.Plotly.newPlot(el, fig.data || [], layout, {
      responsive: true,
      displaylogo: false,
      modeBarButtonsToRemove: ['sendDataToCloud', 'select2d', 'lasso2d']
    });
    el.setAttribute('data-rendered', 'true');
    // page scripts (leaderboard.js) hook into a chart once it is drawn, however late that is
    var notify = function () { el.dispatchEvent(new CustomEvent('evalsite:chart-drawn')); };
    if (drawn && typeof drawn.then === 'function') { drawn.then(notify); } else { notify(); }
  }

  function allCharts() {
    return Array.prototype.slice.call(document.querySelectorAll('div.chart[data-figure]'));
  }

  function failed() {
    plotlyState = 'failed';
    waiting = [];
    allCharts().forEach(function (el) {
      if (el.getAttribute('data-rendered') !== 'true') {
        el.textContent = 'Charts need assets/plotly.min.js, which did not load. The tables on this page hold the same numbers.';
      }
    });
  }

  // Run fn once Plotly is there, loading the bundle (once) when the page has not.
  function withPlotly(fn) {
    if (window.Plotly) { fn(); return; }
    if (plotlyState === 'failed') { return; }
    waiting.push(fn);
    if (plotlyState === 'loading') { return; }
    if (!bundle) { failed(); return; }
    plotlyState = 'loading';
    var tag = document.createElement('script');
    tag.src = bundle;
    tag.onload = function () {
      if (!window.Plotly) { failed(); return; }
      var queue = waiting;
      waiting = [];
      queue.forEach(function (run) { run(); });
    };
    tag.onerror = failed;
    document.head.appendChild(tag);
  }

  function draw(el) {
    if (el.getAttribute('data-rendered') === 'true' || el.getAttribute('data-queued') === 'true') { return; }
    el.setAttribute('data-queued', 'true');
    withPlotly(function () { render(el); });
  }

  function start() {
    var charts = allCharts();
    if (!charts.length) { return; }
    var reach = window.innerHeight * 1.5;
    var later = [];
    charts.forEach(function (el) {
      var box = el.getBoundingClientRect();
      var shown = el.offsetParent !== null;
      if (shown && box.top < reach && box.bottom > -reach) { draw(el); } else { later.push(el); }
    });
    if (!later.length) { return; }
    if ('IntersectionObserver' in window) {
      var observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (entry.isIntersecting) { observer.unobserve(entry.target); draw(entry.target); }
        });
      }, {rootMargin: '800px 0px'});
      later.forEach(function (el) { observer.observe(el); });
    }
    var idle = window.requestIdleCallback
      ? function (fn) { window.requestIdleCallback(fn, {timeout: 1000}); }
      : function (fn) { window.setTimeout(fn, 100); };
    function next() {
      var el = later.shift();
      if (!el) { return; }
      draw(el);
      idle(next);
    }
    // once the page has loaded and settled (idle, then a short pause), so that evaluating the
    // bundle never holds up the first screen; a chart the reader scrolls to is drawn sooner
    function whenSettled() {
      idle(function () { window.setTimeout(function () { withPlotly(function () { idle(next); }); }, SETTLE_MS); });
    }
    if (document.readyState === 'complete') { whenSettled(); } else { window.addEventListener('load', whenSettled); }
  }

  // A chart drawn while its collapsed section was closed takes the width of the opened section.
  document.addEventListener('toggle', function (event) {
    var box = event.target;
    if (!box.open || !window.Plotly) { return; }
    box.querySelectorAll('div.chart[data-rendered="true"]').forEach(function (el) { window.Plotly.Plots.resize(el); });
  }, true);

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
