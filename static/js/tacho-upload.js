/* Tachograph pages: upload several files with a progress bar each, and copy a download link.
 *
 * Without JavaScript the upload form posts every chosen file at once and the page lists each
 * file's outcome. With it, each file goes in its own request (XMLHttpRequest, for its upload
 * progress) to the form's data-upload-url, the JSON route of one file; the server answers the
 * outcome as JSON (201 new, 200 already uploaded, 422 refused, 413 too large) and the list
 * refreshes once all are done. Texts come from the form's data-msg-* attributes, so they are
 * translated on the server.
 */
(function () {
  "use strict";

  function outcomeItem(name, waiting) {
    var item = document.createElement("li");
    item.className = "tacho-outcome tacho-outcome-bezig";
    var label = document.createElement("span");
    label.className = "tacho-outcome-name";
    label.textContent = name;
    var bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", name);
    var text = document.createElement("span");
    text.className = "tacho-outcome-text";
    text.textContent = waiting;
    item.append(label, bar, text);
    return { item: item, bar: bar, text: text };
  }

  function finish(row, resultaat, message, url, viewText) {
    row.item.className = "tacho-outcome tacho-outcome-" + resultaat;
    row.bar.value = 100;
    row.bar.hidden = true;
    row.text.textContent = message;
    if (url) {
      var link = document.createElement("a");
      link.href = url;
      link.textContent = viewText;
      row.item.append(" ", link);
    }
  }

  function setUpUpload(form) {
    var input = form.querySelector('input[type="file"]');
    var results = document.getElementById("tacho-upload-results");
    var button = form.querySelector('button[type="submit"]');
    var uploadUrl = form.dataset.uploadUrl;
    if (!input || !results || !uploadUrl || !window.FormData || !window.XMLHttpRequest) {
      return;
    }
    var msg = form.dataset;

    form.addEventListener("submit", function (event) {
      var files = Array.prototype.slice.call(input.files || []);
      if (!files.length) {
        return; // the server answers "choose a file" at the field
      }
      event.preventDefault();
      results.replaceChildren();
      results.hidden = false;
      button.disabled = true;
      var counts = { nieuw: 0, dubbel: 0, fout: 0 };
      var rows = files.map(function (file) {
        var row = outcomeItem(file.name, msg.msgWaiting);
        results.append(row.item);
        return row;
      });

      function send(index) {
        if (index >= files.length) {
          done();
          return;
        }
        var file = files[index];
        var row = rows[index];
        var data = new FormData();
        data.append("csrf_token", form.elements.csrf_token.value);
        data.append("chauffeur", form.elements.chauffeur.value);
        data.append("voertuig", form.elements.voertuig.value);
        data.append("bestanden", file, file.name);
        var xhr = new XMLHttpRequest();
        xhr.open("POST", uploadUrl);
        xhr.setRequestHeader("Accept", "application/json");
        row.text.textContent = msg.msgSending;
        xhr.upload.addEventListener("progress", function (e) {
          if (e.lengthComputable) {
            row.bar.value = Math.round((e.loaded / e.total) * 100);
            if (e.loaded >= e.total) {
              row.text.textContent = msg.msgChecking;
            }
          }
        });
        xhr.addEventListener("load", function () {
          var answer = null;
          try {
            answer = JSON.parse(xhr.responseText);
          } catch (ignored) {
            answer = null;
          }
          if (answer && answer.resultaat) {
            counts[answer.resultaat] = (counts[answer.resultaat] || 0) + 1;
            finish(row, answer.resultaat, answer.bericht, answer.url, msg.msgView);
          } else {
            counts.fout += 1;
            finish(row, "fout", msg.msgFailed, null, msg.msgView);
          }
        });
        xhr.addEventListener("error", function () {
          counts.fout += 1;
          finish(row, "fout", msg.msgNetwork, null, msg.msgView);
        });
        xhr.addEventListener("loadend", function () {
          send(index + 1);
        });
        xhr.send(data);
      }

      function done() {
        button.disabled = false;
        input.value = "";
        if (files.length > 1) {
          var summary = document.createElement("li");
          summary.className = "tacho-outcome tacho-outcome-samenvatting";
          summary.textContent = msg.msgDone
            .replace("{ok}", counts.nieuw)
            .replace("{dup}", counts.dubbel)
            .replace("{bad}", counts.fout);
          results.append(summary);
        }
        var target = document.getElementById("tacho-results");
        if (target && window.htmx) {
          window.htmx.ajax("GET", form.dataset.listUrl, { target: "#tacho-results", swap: "outerHTML" });
        }
      }

      send(0);
    });
  }

  function setUpCopy(button) {
    var source = document.getElementById(button.dataset.copyTarget);
    if (!source || !navigator.clipboard) {
      return;
    }
    button.hidden = false;
    var label = button.textContent;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.value).then(function () {
        button.textContent = button.dataset.copied;
        window.setTimeout(function () {
          button.textContent = label;
        }, 2000);
      });
    });
    source.addEventListener("focus", function () {
      source.select();
    });
  }

  function init() {
    var form = document.getElementById("tacho-upload");
    if (form) {
      setUpUpload(form);
    }
    document.querySelectorAll("[data-copy-target]").forEach(setUpCopy);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
