/* evalsite charts: render every Plotly figure whose JSON sits in a
 * <script type="application/json"> block.  No inline script anywhere, so pages
 * work under a strict Content-Security-Policy (script-src 'self').
 * The figure JSON is plain data: JSON.parse never executes anything. */
(function () {
  'use strict';

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
