/* The messages page: search the drivers, "all active drivers", and counters.
 *
 * The form works without this file (every driver is listed, "all" is sent as a field);
 * this only makes a long list easier. No inline script (CSP); it sets itself up again
 * whenever htmx swaps the form in (after a send or a refused send).
 */
(function () {
  "use strict";
  if (window.rijplanMessages) return;
  window.rijplanMessages = true;

  function each(list, fn) { Array.prototype.forEach.call(list, fn); }

  function setup(root) {
    var form = root && root.id === "compose-form" ? root
      : root && root.querySelector ? root.querySelector("#compose-form") : null;
    if (!form || form.getAttribute("data-ready")) return;
    form.setAttribute("data-ready", "1");

    var fieldset = form.querySelector("fieldset.recipients");
    var boxes = form.querySelectorAll("[data-driver]");
    var all = form.querySelector("[data-select-all]");
    var search = form.querySelector("[data-driver-search]");
    var none = form.querySelector("[data-search-empty]");
    var count = form.querySelector("[data-chosen-count]");

    function chosen() {
      var n = 0;
      each(boxes, function (box) { if (box.checked) n += 1; });
      return n;
    }

    function showCount() {
      if (!count || !fieldset) return;
      var n = chosen();
      var text = n === 0 ? fieldset.getAttribute("data-chosen-none")
        : n === 1 ? fieldset.getAttribute("data-chosen-one")
        : fieldset.getAttribute("data-chosen-many").replace("{n}", String(n));
      count.textContent = text;
    }

    if (all) {
      all.addEventListener("change", function () {
        each(boxes, function (box) { box.checked = all.checked; });
        showCount();
      });
    }
    each(boxes, function (box) {
      box.addEventListener("change", function () {
        if (all) {
          var every = true;
          each(boxes, function (b) { if (!b.checked) every = false; });
          all.checked = every;
        }
        showCount();
      });
    });

    if (search && boxes.length > 5) {
      search.hidden = false;
      search.addEventListener("input", function () {
        var q = search.value.trim().toLowerCase();
        var shown = 0;
        each(boxes, function (box) {
          var item = box.closest("li");
          var match = !q || item.textContent.toLowerCase().indexOf(q) !== -1;
          item.hidden = !match;
          if (match) shown += 1;
        });
        if (none) none.hidden = shown > 0;
      });
      // Enter in the search field filters; it does not send the message.
      search.addEventListener("keydown", function (event) {
        if (event.key === "Enter") event.preventDefault();
      });
    }
    showCount();

    each(form.querySelectorAll("[data-counter]"), function (input) {
      var out = document.getElementById(input.getAttribute("data-counter"));
      if (!out) return;
      var max = out.getAttribute("data-max");
      function update() { out.textContent = input.value.length + " / " + max; }
      out.hidden = false;
      input.addEventListener("input", update);
      update();
    });
  }

  document.addEventListener("DOMContentLoaded", function () { setup(document); });
  document.addEventListener("htmx:load", function (event) { setup(event.detail.elt); });
  if (document.readyState !== "loading") setup(document);
})();
