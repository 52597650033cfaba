// Run pages: expand/collapse all steps and an offline in-page search (no network, no eval).
(function () {
  "use strict";
  function steps() { return Array.prototype.slice.call(document.querySelectorAll(".transcript > li.step")); }
  function setAll(open) {
    document.querySelectorAll(".transcript details.step-body").forEach(function (d) { d.open = open; });
  }
  function search(term) {
    var needle = term.trim().toLowerCase();
    var shown = 0;
    steps().forEach(function (li) {
      var hit = !needle || li.textContent.toLowerCase().indexOf(needle) >= 0;
      li.hidden = !hit;
      if (hit) { shown += 1; }
      var details = li.querySelector("details.step-body");
      if (details && needle && hit) { details.open = true; }
    });
    var count = document.getElementById("run-search-count");
    if (count) { count.textContent = needle ? shown + " matching step" + (shown === 1 ? "" : "s") : ""; }
  }
  document.addEventListener("DOMContentLoaded", function () {
    var input = document.getElementById("run-search");
    if (input) { input.addEventListener("input", function () { search(input.value); }); }
    var expand = document.getElementById("run-expand");
    var collapse = document.getElementById("run-collapse");
    if (expand) { expand.addEventListener("click", function () { setAll(true); }); }
    if (collapse) { collapse.addEventListener("click", function () { setAll(false); }); }
  });
})();
