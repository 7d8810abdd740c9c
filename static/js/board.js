/* The planning board: drag and drop, the task dialog, and a calm live refresh.
 *
 * Everything here improves pages that work without it: cards have a "Verplaats" form,
 * confirmations have their own page. No inline script (CSP script-src 'self'); htmx sends
 * the CSRF header from hx-headers on <main> because every request's source is inside it.
 */
(function () {
  "use strict";
  if (window.rijplanBoard) return; // loaded twice (a swap that carries the script tag)
  window.rijplanBoard = true;

  var dragged = null;
  var refreshSkipped = false;
  var savedScroll = null;
  var focusCard = null; // the card that had keyboard focus before a swap replaced it
  var returnFocus = null; // the card moved with the keyboard dialog: focus it once redrawn

  function dialog() { return document.getElementById("task-dialog"); }
  function dialogOpen() { var d = dialog(); return !!(d && d.open); }
  function keyboardFocusIn(region) {
    var active = document.activeElement;
    return !!(active && active !== document.body && region.contains(active) &&
      active.matches(":focus-visible"));
  }

  // A refresh would take away what the planner is busy with: a drag, a dialog, an open
  // "Meer" menu, or keyboard focus on a card.
  function paused() {
    if (dragged !== null || dialogOpen()) return true;
    var board = document.getElementById("board");
    if (!board) return false;
    return !!board.querySelector("details[open]") || keyboardFocusIn(board);
  }

  function closeDialog() {
    var d = dialog();
    if (d && d.open) d.close();
  }

  function refreshBoard() {
    if (document.getElementById("board")) htmx.trigger(document.body, "tasksChanged");
  }

  // --- drag and drop -------------------------------------------------------------------

  function dropZone(node) {
    return node && node.closest ? node.closest("[data-drop-driver], [data-drop-date]") : null;
  }

  function clearHighlights() {
    document.querySelectorAll(".drop-over").forEach(function (el) {
      el.classList.remove("drop-over");
    });
  }

  document.addEventListener("dragstart", function (event) {
    var card = event.target.closest ? event.target.closest("[data-move-url]") : null;
    if (!card) return;
    dragged = card;
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", card.id);
    card.classList.add("is-dragging");
    document.body.classList.add("board-dragging");
  });

  document.addEventListener("dragend", function () {
    if (dragged) dragged.classList.remove("is-dragging");
    dragged = null;
    document.body.classList.remove("board-dragging");
    clearHighlights();
    if (refreshSkipped && !paused()) { refreshSkipped = false; refreshBoard(); }
  });

  document.addEventListener("dragover", function (event) {
    var zone = dropZone(event.target);
    if (!zone || !dragged) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    if (!zone.classList.contains("drop-over")) { clearHighlights(); zone.classList.add("drop-over"); }
  });

  document.addEventListener("dragleave", function (event) {
    var zone = dropZone(event.target);
    if (zone && !zone.contains(event.relatedTarget)) zone.classList.remove("drop-over");
  });

  document.addEventListener("drop", function (event) {
    var zone = dropZone(event.target);
    if (!zone || !dragged) return;
    event.preventDefault();
    clearHighlights();
    var card = dragged;
    var values = { versie: card.dataset.versie };
    if (zone.hasAttribute("data-drop-driver")) {
      if (zone.dataset.dropDriver === card.dataset.chauffeur) return; // its own lane
      if (card.dataset.vehicle) {
        // Does the vehicle go along? The server asks in the dialog, then moves the task.
        htmx.ajax("GET", card.dataset.moveUrl + "?chauffeur_id=" +
          encodeURIComponent(zone.dataset.dropDriver), {
          source: card, target: "#dialog-body", swap: "innerHTML"
        });
        return;
      }
      values.chauffeur_id = zone.dataset.dropDriver;
      var list = zone.querySelector(".cards");
      if (list && card.parentElement) list.appendChild(card.parentElement); // until the refresh
    } else {
      values.datum = zone.dataset.dropDate;
      card.classList.add("is-leaving");
    }
    // The card is the source: its ancestors give the CSRF header (hx-headers on <main>).
    htmx.ajax("POST", card.dataset.moveUrl, {
      source: card, values: values, target: "#board-message", swap: "innerHTML"
    });
  });

  // --- htmx: errors that carry a message, the dialog, scroll, paused polling ------------

  document.addEventListener("htmx:beforeSwap", function (event) {
    var status = event.detail.xhr.status;
    // 409 (illegal move) and 412 (changed meanwhile) answer with a message to show.
    if (status === 409 || status === 412) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
    var target = event.detail.target;
    if (target && target.id === "board") {
      var lanes = target.querySelector(".lanes");
      savedScroll = lanes ? { left: lanes.scrollLeft, top: lanes.scrollTop } : null;
    }
    var active = document.activeElement;
    var card = active && active.closest ? active.closest("article.card") : null;
    if (card && target && keyboardFocusIn(target)) focusCard = card.id;
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    // The button that was pressed is gone with the old card: keep the place on the board.
    // (A status change swaps the card, then the refresh swaps the board: either may come
    // first, so the card is remembered until its title has the focus.)
    if (focusCard) {
      var active = document.activeElement;
      if (!active || active === document.body || !active.isConnected) {
        var title = document.querySelector("#" + CSS.escape(focusCard) + " .card-title a");
        if (title) { title.focus(); focusCard = null; }
      } else {
        focusCard = null;
      }
    }
    var target = event.detail.target;
    if (target && target.id === "board" && returnFocus) {
      // The keyboard move is done and the board redrawn: back to the moved card.
      var moved = document.querySelector("#" + CSS.escape(returnFocus) + " .card-title a");
      returnFocus = null;
      if (moved) { moved.focus(); focusCard = null; }
    }
    if (target && target.id === "dialog-body") {
      var d = dialog();
      if (d && !d.open && target.childElementCount) d.showModal();
      var invalid = target.querySelector("[aria-invalid=true]");
      if (invalid) invalid.focus();
    }
  });

  document.addEventListener("htmx:afterSettle", function () {
    var lanes = document.querySelector("#board .lanes");
    if (lanes && savedScroll) {
      lanes.scrollLeft = savedScroll.left;
      lanes.scrollTop = savedScroll.top;
    }
    savedScroll = null;
    var form = document.getElementById("task-form");
    var invalid = form && form.querySelector("[aria-invalid=true]");
    if (invalid && !form.dataset.focused) { form.dataset.focused = "1"; invalid.focus(); }
  });

  // The board's poll waits while the planner drags or has a dialog open; a change made
  // meanwhile (tasksChanged) still refreshes at once.
  document.addEventListener("htmx:confirm", function (event) {
    if (event.target.id !== "board") return;
    var why = event.detail.triggeringEvent;
    if (why && why.type === "tasksChanged") return;
    if (paused()) { event.preventDefault(); refreshSkipped = true; }
  });

  // A write from the dialog succeeded: close it; after a keyboard move, the focus goes back
  // to the moved card once the board shows it in its new place.
  document.body.addEventListener("tasksChanged", function () {
    var d = dialog();
    var moved = d && d.open ? d.querySelector("[data-focus-after]") : null;
    if (moved) returnFocus = moved.getAttribute("data-focus-after");
    closeDialog();
  });

  document.addEventListener("click", function (event) {
    var node = event.target.closest ? event.target : null;
    if (!node) return;
    if (node.closest("[data-close-dialog]")) { closeDialog(); return; }
    var dismiss = node.closest("[data-dismiss]");
    if (dismiss) {
      var message = dismiss.closest(".board-msg");
      if (message) message.remove();
    }
  });

  var d = dialog();
  if (d) {
    d.addEventListener("close", function () {
      var body = document.getElementById("dialog-body");
      if (body) body.innerHTML = "";
      if (refreshSkipped && !paused()) { refreshSkipped = false; refreshBoard(); }
    });
    // A click on the backdrop (outside the article) closes the dialog too.
    d.addEventListener("click", function (event) {
      if (event.target === d) closeDialog();
    });
  }
})();
