// Proof of delivery: the print button and the share link's copy button (no inline script).
(function () {
  "use strict";

  function init() {
    document.querySelectorAll("[data-print]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        window.print();
      });
    });
    document.querySelectorAll("[data-copy-target]").forEach(function (button) {
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
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
