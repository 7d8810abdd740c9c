/* The questionnaire builder: versie on every edit, focus after a re-render, collapsing
 * cards, moving questions by drag and drop or Alt+arrow keys, the remove dialog, the
 * editor/preview tabs on small screens, and the id suggested from a new title.
 *
 * The server holds the draft: every change is an htmx request that stores it and answers
 * the re-rendered editor (or, while typing, only the problems and save status). No inline
 * script (CSP script-src 'self'); htmx sends the CSRF header from hx-headers on <main>.
 */
(function () {
  "use strict";
  if (window.rijplanBuilder) return;
  window.rijplanBuilder = true;

  function byId(id) { return document.getElementById(id); }
  function builder() { return byId("builder"); }

  // --- the draft's versie travels with every edit ---------------------------------------

  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    var versie = byId("draft-versie");
    if (!versie || !elt || !elt.closest) return;
    if (elt.closest("#editor, #builder-dialog")) {
      event.detail.parameters.versie = versie.value;
    }
  });

  // While an edit travels, the save status says so; the answer puts the time back.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    var status = byId("save-status");
    if (status && elt && elt.closest && elt.closest("#editor, #builder-dialog") &&
        event.detail.requestConfig && event.detail.requestConfig.verb === "post" &&
        !/\/formule$/.test(event.detail.requestConfig.path)) {
      // "Saving" and the last save share one grid cell (app.css): the header keeps its
      // width, so a click that began this save (its mousedown left the field) still lands on
      // the button it aimed at. A class only: an inline style is refused by the CSP.
      status.classList.add("is-saving");
    }
  });

  document.addEventListener("htmx:afterRequest", function () {
    // An answer that brought no new status (a refusal, a failure) puts the old one back.
    var status = byId("save-status");
    if (status) status.classList.remove("is-saving");
  });

  // --- an answer never undoes typing that happened after its request left ----------------
  //
  // The editor and the preview are re-rendered by the server. An answer that lands while the
  // author types on (in the same field or the next one) would put back the values the request
  // carried. So every edit is counted; a swap keeps each field edited after its request left,
  // with the focus and the caret, and sends the kept value on as a fresh edit. The preview
  // also drops an answer when a newer preview request has left since.

  var edits = 0;
  var editedAt = {};
  var previewSent = 0;
  // Set when an answer lands while the author works in another field than the one that sent
  // the request: the focus the answer asks for (builderFocus) would pull them out of it.
  var movedOn = false;

  function isField(el) {
    return el && el.matches && el.matches("input:not([type=hidden]), textarea, select");
  }

  function fieldKey(el) {
    var key = el.id || ((el.form && el.form.id) || "") + ":" + el.name;
    if (el.type === "radio" || el.type === "checkbox") key += "=" + el.value;
    return key;
  }

  function findField(key) {
    var root = builder();
    if (!root) return null;
    var found = byId(key);
    if (found && isField(found)) return found;
    var fields = root.querySelectorAll("input, textarea, select");
    for (var i = 0; i < fields.length; i++) {
      if (isField(fields[i]) && fieldKey(fields[i]) === key) return fields[i];
    }
    return null;
  }

  function noteEdit(event) {
    var el = event.target;
    if (!isField(el) || !el.closest("#builder")) return;
    edits += 1;
    editedAt[fieldKey(el)] = edits;
  }
  document.addEventListener("input", noteEdit, true);
  document.addEventListener("change", noteEdit, true);

  // "Controleer" or "Opnieuw beginnen" pressed while a preview answer is on its way: htmx
  // queues the press on the form, and the answer replaces that form, which drops the queued
  // press. So the press is noted, and made again on the form that came in its place. (Events
  // of the replaced form no longer reach the document, so the request itself is watched.)
  var previewXhr = null;
  var pressAgain = null;

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.id !== "preview-form" || !previewXhr || previewXhr.readyState === 4) return;
    var submitter = event.submitter;
    pressAgain = submitter && submitter.name ? submitter.name : "controleer";
  }, true);
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!event.detail.elt || event.detail.elt.id !== "preview-form") return;
    previewXhr = event.detail.xhr;
    var config = event.detail.requestConfig;
    var cause = config && config.triggeringEvent;
    if (cause && cause.type === "submit") pressAgain = null;  // the press itself goes out
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (!pressAgain || !event.detail.target || event.detail.target.id !== "preview") return;
    var name = pressAgain;
    pressAgain = null;
    setTimeout(function () {  // once htmx has finished with the answer that replaced the form
      var form = byId("preview-form");
      var button = form && form.querySelector("button[name=" + name + "]");
      if (button) button.click();  // a click, so that htmx sends the button with the form
    }, 0);
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr) return;
    xhr.rijplanEdits = edits;
    var target = event.detail.target;
    if (target && target.id === "preview") {
      previewSent += 1;
      xhr.rijplanPreview = previewSent;
    }
  });

  function fieldState(el) {
    var state = { key: fieldKey(el), value: el.value, checked: el.checked, kind: el.type };
    if (el === document.activeElement) {
      state.focused = true;
      try {
        state.start = el.selectionStart;
        state.end = el.selectionEnd;
      } catch (e) { /* no caret in this kind of field */ }
    }
    return state;
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var target = event.detail.target;
    if (!xhr || !target || !target.closest || !target.closest("#builder")) return;
    if (xhr.rijplanPreview && xhr.rijplanPreview < previewSent) {
      event.detail.shouldSwap = false;  // a newer preview request is on its way
      return;
    }
    var since = xhr.rijplanEdits || 0;
    var keep = [];
    target.querySelectorAll("input, textarea, select").forEach(function (el) {
      if (isField(el) && (editedAt[fieldKey(el)] || 0) > since) keep.push(fieldState(el));
    });
    var active = document.activeElement;
    var focus = isField(active) && target.contains(active) ? fieldState(active) : null;
    var source = event.detail.requestConfig && event.detail.requestConfig.elt;
    movedOn = !!(isField(active) && active.closest("#builder") && source &&
                 active !== source && !(source.contains && source.contains(active)));
    xhr.rijplanKeep = { fields: keep, focus: focus };
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var kept = event.detail.xhr && event.detail.xhr.rijplanKeep;
    if (!kept) return;
    event.detail.xhr.rijplanKeep = null;
    var resend = [];
    kept.fields.forEach(function (state) {
      var el = findField(state.key);
      if (!el || el.type !== state.kind) return;
      if (el.type === "radio" || el.type === "checkbox") {
        if (el.checked !== state.checked) { el.checked = state.checked; resend.push(el); }
      } else if (el.value !== state.value) {
        el.value = state.value;
        resend.push(el);
      }
    });
    if (kept.focus) {
      var el = findField(kept.focus.key);
      if (el && !el.disabled) {
        if (document.activeElement !== el) el.focus({ preventScroll: true });
        if (kept.focus.start !== undefined && kept.focus.start !== null) {
          try { el.setSelectionRange(kept.focus.start, kept.focus.end); } catch (e) { /* none */ }
        }
      }
    }
    // The server has not seen these values yet: they go out as the edits they are, once
    // htmx has settled the new content (its triggers listen only from then on).
    if (resend.length) {
      setTimeout(function () {
        resend.forEach(function (el) {
          if (el.isConnected) el.dispatchEvent(new Event("input", { bubbles: true }));
        });
      }, 0);
    }
  });

  // --- messages: conflicts, refusals and failures show above the editor -----------------

  document.addEventListener("htmx:beforeSwap", function (event) {
    // A confirmed action closes its dialog before the answer lands, so the focus set after
    // the swap is not taken back by the dialog returning it to where it was opened.
    var source = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (source && source.closest && source.closest("#builder-dialog") &&
        event.detail.target && event.detail.target.id !== "builder-dialog-body") {
      closeDialog();
    }
    var status = event.detail.xhr.status;
    if ((status === 409 || status === 413) && event.detail.xhr.getResponseHeader("HX-Retarget")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  function showAlert(text) {
    var region = byId("builder-alert");
    if (!region) return;
    region.textContent = "";
    var box = document.createElement("div");
    box.className = "qb-alert qb-alert-error";
    box.setAttribute("role", "alert");
    var p = document.createElement("p");
    p.textContent = text;
    box.appendChild(p);
    region.appendChild(box);
  }

  document.addEventListener("htmx:responseError", function (event) {
    var b = builder();
    if (!b || !b.contains(event.detail.elt)) return;
    var text = (b.dataset.errorText || "Error {status}").replace("{status}", event.detail.xhr.status);
    showAlert(text);
  });

  document.addEventListener("htmx:sendError", function (event) {
    var b = builder();
    if (!b || !b.contains(event.detail.elt)) return;
    showAlert((b.dataset.errorText || "Error {status}").replace("{status}", "—"));
  });

  // --- focus after a re-render ----------------------------------------------------------

  var fieldSuffix = {
    "label": "-label", "id": "-id", "type": "-type", "unit": "-unit", "max_files": "-max_files",
    "default_value": "-default", "validation.min": "-v-min", "validation.max": "-v-max",
    "validation.minlength": "-v-minlength", "validation.maxlength": "-v-maxlength",
    "validation.regex": "-v-regex", "visible_if": "-cond-mode", "visible_if.question_id": "-cond-q",
    "visible_if.operator": "-cond-op", "visible_if.value": "-cond-value", "formula": "-formula",
    "options": "-opt-0", "required": "-label", "readonly": "-label"
  };

  function focusable(el) {
    if (!el) return false;
    var folded = el.closest && el.closest("details:not([open])");
    if (folded && !el.matches("summary")) folded.open = true;
    return !el.disabled && el.offsetParent !== null;
  }

  function reveal(item) {
    // Open the card and every group around it.
    var node = item;
    while (node) {
      if (node.classList && node.classList.contains("q-item")) setCollapsed(node, false);
      node = node.parentElement;
    }
  }

  function focusIn(item, field) {
    if (!item) return;
    reveal(item);
    var target = byId(item.id + (fieldSuffix[field] || "-label")) || byId("toggle-" + item.id);
    if (target && target.tagName === "DIV") target = target.querySelector("input, select, textarea");
    target = focusable(target) ? target : byId("toggle-" + item.id);
    if (target) {
      target.focus();
      target.scrollIntoView({ block: "center", behavior: "smooth" });
    }
  }

  document.body.addEventListener("builderFocus", function (event) {
    if (movedOn) { movedOn = false; return; }  // the author is typing elsewhere: stay there
    var detail = event.detail || {};
    var item = detail.id ? byId(detail.id) : null;
    if (detail.kind === "add") {
      var form = byId(detail.id);
      var select = form && form.querySelector("select");
      if (select) select.focus();
      return;
    }
    if (!item) return;
    reveal(item);
    var target = null;
    if (detail.kind === "new") {
      target = byId(item.id + "-label");
      if (target) { target.focus(); target.select(); target.scrollIntoView({ block: "center" }); }
      return;
    }
    if (detail.kind === "move") {
      target = byId("mv-" + item.id + "-" + detail.action);
      if (!focusable(target)) target = byId("toggle-" + item.id);
    } else if (detail.kind === "field" && detail.field) {
      target = byId(detail.field);
      if (/-cond-mode$/.test(detail.field)) target = byId(item.id + "-cond-q") || target;
    } else if (detail.kind === "option") {
      target = detail.index === null || detail.index === undefined
        ? byId(item.id + "-opt-0") : byId(item.id + "-opt-" + detail.index);
      if (target && target.select) { target.focus(); target.select(); }
    }
    if (!focusable(target)) target = byId("toggle-" + item.id);
    if (target) {
      target.focus();
      var box = target.getBoundingClientRect();
      if (box.top < 0 || box.bottom > window.innerHeight) target.scrollIntoView({ block: "center" });
    }
  });

  // --- collapsing cards (remembered per questionnaire for this tab) ---------------------

  function storeKey() { return "qb-collapsed:" + location.pathname; }
  function collapsedIds() {
    try { return JSON.parse(sessionStorage.getItem(storeKey()) || "[]"); } catch (e) { return []; }
  }
  function remember(qid, collapsed) {
    if (!qid) return;
    var ids = collapsedIds().filter(function (id) { return id !== qid; });
    if (collapsed) ids.push(qid);
    try { sessionStorage.setItem(storeKey(), JSON.stringify(ids)); } catch (e) { /* private mode */ }
  }
  function setCollapsed(item, collapsed) {
    item.classList.toggle("is-collapsed", collapsed);
    var toggle = byId("toggle-" + item.id);
    if (toggle) toggle.setAttribute("aria-expanded", collapsed ? "false" : "true");
  }
  function applyCollapsed(root) {
    var ids = collapsedIds();
    (root || document).querySelectorAll(".q-item").forEach(function (item) {
      var bad = item.querySelector(":scope > .q-card > .q-problems-wrap .q-problems");
      setCollapsed(item, ids.indexOf(item.dataset.qid) >= 0 && !bad);
    });
  }

  document.addEventListener("click", function (event) {
    var node = event.target.closest ? event.target : null;
    if (!node) return;
    var toggle = node.closest(".q-toggle");
    if (toggle) {
      var item = toggle.closest(".q-item");
      var collapsed = !item.classList.contains("is-collapsed");
      setCollapsed(item, collapsed);
      remember(item.dataset.qid, collapsed);
      return;
    }
    if (node.closest("[data-collapse-all], [data-expand-all]")) {
      var all = !!node.closest("[data-collapse-all]");
      document.querySelectorAll("#editor .q-item").forEach(function (item) {
        setCollapsed(item, all);
        remember(item.dataset.qid, all);
      });
      return;
    }
    var goto = node.closest("[data-goto]");
    if (goto) {
      var target = byId(goto.dataset.goto);
      if (target && target.classList.contains("q-item")) {
        event.preventDefault();
        focusIn(target, goto.dataset.field);
      } else if (target) {
        event.preventDefault();
        var input = goto.dataset.field === "activity_type" ? byId("general-activity") : byId("general-title");
        if (input) { input.focus(); input.scrollIntoView({ block: "center" }); }
      }
      return;
    }
    if (node.closest("[data-close-dialog]")) { closeDialog(); return; }
    var dismiss = node.closest("[data-dismiss]");
    if (dismiss) {
      var alert = dismiss.closest(".qb-alert");
      if (alert) alert.remove();
      return;
    }
    var tab = node.closest(".builder-tabs [data-tab]");
    if (tab) { showTab(tab.dataset.tab); return; }
    // A click outside an open "Meer" menu closes it.
    document.querySelectorAll("details.dropdown[open]").forEach(function (menu) {
      if (!menu.contains(node)) menu.removeAttribute("open");
    });
  });

  // --- keyboard: Alt+arrows move the focused question -----------------------------------

  var keyMoves = { ArrowUp: "op", ArrowDown: "neer", ArrowRight: "in", ArrowLeft: "uit" };
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      document.querySelectorAll("details.dropdown[open]").forEach(function (menu) {
        menu.removeAttribute("open");
      });
    }
    if (!event.altKey || event.ctrlKey || event.metaKey || !keyMoves[event.key]) return;
    var item = event.target.closest ? event.target.closest("#editor .q-item") : null;
    if (!item) return;
    // Alt+Left/Right would otherwise leave the page (browser history).
    event.preventDefault();
    var button = byId("mv-" + item.id + "-" + keyMoves[event.key]);
    if (button && !button.disabled) button.click();
  });

  // --- drag and drop --------------------------------------------------------------------

  var dragging = null;
  var dropAt = null;

  function clearMarks() {
    document.querySelectorAll(".drop-before, .drop-after, .drop-over").forEach(function (el) {
      el.classList.remove("drop-before", "drop-after", "drop-over");
    });
  }

  // Only the handle is draggable: inputs inside a draggable card would lose text selection.
  document.addEventListener("dragstart", function (event) {
    var handle = event.target.closest ? event.target.closest("[data-drag-handle]") : null;
    if (!handle) return;
    var item = handle.closest(".q-item");
    dragging = item;
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", item.dataset.path);
    var head = item.querySelector(":scope > .q-card > .q-head");
    if (head && event.dataTransfer.setDragImage) event.dataTransfer.setDragImage(head, 12, 12);
    item.classList.add("is-dragging");
    document.body.classList.add("qb-dragging");
  });

  document.addEventListener("dragend", function () {
    if (dragging) dragging.classList.remove("is-dragging");
    dragging = null;
    dropAt = null;
    document.body.classList.remove("qb-dragging");
    clearMarks();
  });

  function placeFor(event) {
    var zone = event.target.closest ? event.target.closest(".q-drop, .q-item") : null;
    if (!zone || !dragging || dragging.contains(zone)) return null;
    if (zone.classList.contains("q-drop")) {
      return { el: zone, mark: "drop-over", parent: zone.dataset.parent, index: +zone.dataset.index };
    }
    var list = zone.parentElement;
    var head = zone.querySelector(":scope > .q-card > .q-head");
    var box = (zone.classList.contains("q-group") ? head : zone).getBoundingClientRect();
    if (zone.classList.contains("q-group") && event.clientY > box.bottom) return null;
    var before = event.clientY < box.top + box.height / 2;
    return {
      el: zone,
      mark: before ? "drop-before" : "drop-after",
      parent: list.dataset.parent,
      index: +zone.dataset.index + (before ? 0 : 1)
    };
  }

  document.addEventListener("dragover", function (event) {
    if (!dragging) return;
    var place = placeFor(event);
    if (!place) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    if (!place.el.classList.contains(place.mark)) { clearMarks(); place.el.classList.add(place.mark); }
    dropAt = place;
  });

  document.addEventListener("drop", function (event) {
    if (!dragging) return;
    var place = placeFor(event) || dropAt;
    if (!place) return;
    event.preventDefault();
    clearMarks();
    var item = dragging;
    var from = item.dataset.path.split(".");
    var ownIndex = +from.pop();
    var sameList = from.join(".") === place.parent;
    if (sameList && (place.index === ownIndex || place.index === ownIndex + 1)) return;
    var editor = byId("editor");
    htmx.ajax("POST", editor.dataset.moveUrl, {
      source: item,
      target: "#editor",
      swap: "outerHTML settle:0ms",
      values: { pad: item.dataset.path, naar_ouder: place.parent, naar_index: place.index }
    });
  });

  // --- the remove dialog ----------------------------------------------------------------

  function dialog() { return byId("builder-dialog"); }
  function closeDialog() {
    var d = dialog();
    if (d && d.open) d.close();
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "builder-dialog-body") {
      var d = dialog();
      if (d && !d.open && target.childElementCount) d.showModal();
    }
    if (target && target.id === "builder-alert" && target.querySelector("[data-stale]")) {
      var editor = byId("editor");
      if (editor) editor.inert = true;
      var preview = byId("preview");
      if (preview) preview.inert = true;
      target.querySelector("[data-reload]").focus();
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    // A successful edit clears an old refusal message.
    if (event.detail.successful && elt && elt.closest && elt.closest("#editor")) {
      var region = byId("builder-alert");
      var xhr = event.detail.xhr;
      if (region && xhr && !xhr.getResponseHeader("HX-Retarget") &&
          !region.querySelector("[data-stale]")) {
        region.textContent = "";
      }
    }
  });

  var d = dialog();
  if (d) {
    d.addEventListener("close", function () {
      var body = byId("builder-dialog-body");
      if (body) body.innerHTML = "";
    });
    d.addEventListener("click", function (event) { if (event.target === d) closeDialog(); });
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (target && (target.id === "editor" || target.closest && target.closest("#editor"))) {
      applyCollapsed(byId("editor"));
    }
  });

  // --- editor and preview as tabs on a small screen -------------------------------------

  function showTab(name) {
    var b = builder();
    if (!b) return;
    b.dataset.tab = name;
    b.querySelectorAll(".builder-tabs [data-tab]").forEach(function (tab) {
      tab.setAttribute("aria-selected", tab.dataset.tab === name ? "true" : "false");
    });
  }

  // --- a new questionnaire: its id follows the title until edited by hand ----------------

  function slugify(text) {
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64).replace(/-+$/, "");
  }

  document.addEventListener("input", function (event) {
    var source = event.target;
    if (source.dataset && source.dataset.slugTarget) {
      var target = byId(source.dataset.slugTarget);
      if (target && !target.dataset.touched) target.value = slugify(source.value);
    } else if (source.id === "questionnaire_id") {
      source.dataset.touched = source.value ? "1" : "";
    }
  });

  // A title typed before this script ran (a slow connection) still suggests its id.
  document.querySelectorAll("[data-slug-target]").forEach(function (source) {
    var target = byId(source.dataset.slugTarget);
    if (source.value && target && !target.value) target.value = slugify(source.value);
  });

  // --- start ----------------------------------------------------------------------------

  if (builder()) {
    showTab("editor");
    applyCollapsed(byId("editor"));
  }
})();
