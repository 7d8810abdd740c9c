/* What every page of the portal shares: filters that apply themselves, and refreshes that
 * keep still what the user is aiming at.
 *
 * No inline handlers anywhere (CSP script-src 'self'): markup asks for behaviour with data-
 * attributes, and this file gives it. Every page works without it.
 */
(function () {
  "use strict";
  if (window.rijplanPortal) return;
  window.rijplanPortal = true;

  // --- a filter that applies itself: <select data-submit-on-change> -------------------------
  // Without script the form keeps its own button (in <noscript>).

  document.addEventListener("change", function (event) {
    var field = event.target;
    if (field.matches && field.matches("[data-submit-on-change]") && field.form) {
      field.form.requestSubmit();
    }
  });

  // --- a refresh never moves what is under the pointer -----------------------------------
  //
  // A form that refreshes part of itself while it is filled in (the task form's warnings and
  // route, the builder) swaps content in above what the user may be about to click. Before a
  // swap the element under the pointer (while a button is held: the one pressed; after typing:
  // the focused field) is measured; after it, the page scrolls by what that element moved, so
  // it stays exactly where it was and the click lands where it was aimed.

  var pointer = null;      // the pointer's last place in the viewport
  var pressed = null;      // the element a mouse button went down on, until it comes up
  var byKeyboard = false;  // the last thing the user did was typing, not moving the pointer

  document.addEventListener("pointermove", function (event) {
    pointer = { x: event.clientX, y: event.clientY };
    byKeyboard = false;
  }, { capture: true, passive: true });
  document.addEventListener("pointerdown", function (event) {
    pointer = { x: event.clientX, y: event.clientY };
    pressed = event.target;
    byKeyboard = false;
  }, true);
  function released() { pressed = null; }
  document.addEventListener("pointerup", function () { setTimeout(released, 0); }, true);
  document.addEventListener("pointercancel", released, true);
  document.addEventListener("keydown", function () { byKeyboard = true; }, true);

  function visible(el) {
    if (!el || !el.getBoundingClientRect || el === document.body ||
        el === document.documentElement) return false;
    var box = el.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight && (box.width > 0 || box.height > 0);
  }

  // What the user aims at: the pressed element, the one under the pointer, or the focus.
  function aim() {
    if (pressed && pressed.isConnected) return pressed;
    var focus = document.activeElement;
    if (byKeyboard && visible(focus)) return focus;
    if (pointer) {
      var under = document.elementFromPoint(pointer.x, pointer.y);
      if (visible(under)) return under;
    }
    return visible(focus) ? focus : null;
  }

  // The swap replaces the aimed element when it sits inside the target: then follow its
  // nearest id (found again after the swap), else the target itself.
  function anchorFor(target, swapStyle) {
    var el = aim();
    if (!el) return null;
    var replaced = swapStyle === "outerHTML" ? target.contains(el)
      : (target.contains(el) && target !== el);
    if (!replaced) return { el: el, top: el.getBoundingClientRect().top };
    var named = el.closest("[id]");
    if (!named || !target.contains(named) && named !== target) named = target;
    if (swapStyle !== "outerHTML" && named === target) {
      return { el: target, top: target.getBoundingClientRect().top };
    }
    return { id: named.id, top: named.getBoundingClientRect().top };
  }

  var anchor = null;

  function keepAnchor() {
    if (!anchor) return;
    var el = anchor.el && anchor.el.isConnected ? anchor.el
      : (anchor.id ? document.getElementById(anchor.id) : null);
    if (!el) return;
    var moved = el.getBoundingClientRect().top - anchor.top;
    if (Math.abs(moved) >= 0.5) window.scrollBy(0, moved);
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    anchor = null;
    var detail = event.detail;
    var target = detail.target;
    if (!detail.shouldSwap || !target || target === document.body) return;
    var elt = detail.elt && detail.elt.closest ? detail.elt.closest("[hx-swap]") : null;
    var style = (detail.swapOverride || (elt && elt.getAttribute("hx-swap")) ||
      "innerHTML").trim().split(/\s+/)[0];
    anchor = anchorFor(target, style);
  });
  document.addEventListener("htmx:afterSwap", keepAnchor);
  document.addEventListener("htmx:afterSettle", function () { keepAnchor(); anchor = null; });

  // --- a submit wins over a refresh --------------------------------------------------------
  //
  // A region marked data-refresh (inside a form) asks the server again while the form is
  // filled in. Once the form is sent, its answer replaces the form or leaves the page: a
  // refresh that would still go out is not sent, and one that answers meanwhile is not shown,
  // so nothing moves under the click and nothing is aborted (an abort is a console error).

  function sending(form) { return !!(form && form.dataset.sending); }
  function refreshOf(elt) {
    var region = elt && elt.closest ? elt.closest("[data-refresh]") : null;
    return region ? region.closest("form") : null;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.tagName === "FORM" && !elt.hasAttribute("data-refresh") &&
        event.detail.requestConfig && event.detail.requestConfig.verb !== "get") {
      elt.dataset.sending = "1";
      return;
    }
    if (sending(refreshOf(elt))) event.preventDefault();
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.tagName === "FORM" && elt.dataset) delete elt.dataset.sending;
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (sending(refreshOf(event.detail.elt))) event.detail.shouldSwap = false;
  }, true);
})();

// === week view (helper WEEK: templates/tasks/week*.html) ===================================
//
// A card dragged in the week goes to the day under the pointer and to the lane it is dropped
// in (a driver's lane: that driver; a vehicle's lane moves the day only), through the day
// board's move route. board.js does the rest: the dialog, pausing the refresh while dragging,
// the message and the board's redraw. A card whose driver changes and that has a vehicle asks
// first (as on the day board) whether the vehicle goes along.
(function () {
  "use strict";
  if (window.rijplanWeek) return;
  window.rijplanWeek = true;
  var dragged = null;

  function cellAt(track, x) {
    var cells = track.querySelectorAll(".wk-cell");
    for (var i = 0; i < cells.length; i++) {
      var box = cells[i].getBoundingClientRect();
      if (x >= box.left && x < box.right) return cells[i];
    }
    return null;
  }
  function clear() {
    document.querySelectorAll(".wk-cell.drop-over").forEach(function (c) { c.classList.remove("drop-over"); });
  }
  function target(event) {
    var track = event.target.closest ? event.target.closest(".wk-track") : null;
    var cell = track && cellAt(track, event.clientX);
    return cell ? { track: track, cell: cell, lane: track.closest(".wk-lane") } : null;
  }

  document.addEventListener("dragstart", function (event) {
    var card = event.target.closest ? event.target.closest(".wk-card[data-move-url]") : null;
    dragged = card;
  });
  document.addEventListener("dragend", function () { dragged = null; clear(); });
  document.addEventListener("dragover", function (event) {
    if (!dragged) return;
    var found = target(event);
    if (!found) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    if (!found.cell.classList.contains("drop-over")) { clear(); found.cell.classList.add("drop-over"); }
  });
  document.addEventListener("drop", function (event) {
    if (!dragged) return;
    var found = target(event);
    if (!found) return;
    event.preventDefault();
    clear();
    var card = dragged;
    var message = document.getElementById("board-message");
    var cells = Array.prototype.slice.call(found.track.querySelectorAll(".wk-cell"));
    var values = { versie: card.dataset.versie };
    if (cells.indexOf(found.cell) !== Number(card.dataset.day)) values.datum = found.cell.dataset.weekDate;
    var driver = found.lane.dataset.weekDriver;
    var newDriver = driver !== undefined && driver !== card.dataset.chauffeur;
    if (!values.datum && !newDriver) return;
    var ask = newDriver && card.dataset.vehicle;
    if (newDriver && !ask) values.chauffeur_id = driver;
    card.classList.add("is-leaving");
    // The message region is the source: it stays while the board redraws, and its
    // ancestors carry the CSRF header (hx-headers on <main>).
    var moved = values.datum ? htmx.ajax("POST", card.dataset.moveUrl, {
      source: message, values: values, target: "#board-message", swap: "innerHTML"
    }) : Promise.resolve();
    if (ask) {
      moved.then(function () {
        htmx.ajax("GET", card.dataset.moveUrl + "?chauffeur_id=" + encodeURIComponent(driver), {
          source: message, target: "#dialog-body", swap: "innerHTML"
        });
      });
    }
  });
})();
// === end of week view ======================================================================
