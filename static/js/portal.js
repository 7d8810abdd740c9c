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
