// Light or dark: the system's choice until the reader picks one with the header's button, remembered in this
// browser. Loaded before the page is drawn, so a dark page never flashes light.
(function () {
  var KEY = "herotable-theme";
  var ORDER = ["system", "dark", "light"];
  function chosen() {
    try { var v = localStorage.getItem(KEY); return ORDER.indexOf(v) >= 0 ? v : "system"; } catch (e) { return "system"; }
  }
  function apply(choice) {
    if (choice === "system") { document.documentElement.removeAttribute("data-theme"); }
    else { document.documentElement.setAttribute("data-theme", choice); }
    var button = document.getElementById("theme-toggle");
    if (button) {
      button.textContent = "Theme: " + choice;
      button.setAttribute("aria-label", "Colour theme: " + choice + ". Change it");
    }
  }
  apply(chosen());
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (!button) { return; }
    apply(chosen());
    button.addEventListener("click", function () {
      var next = ORDER[(ORDER.indexOf(chosen()) + 1) % ORDER.length];
      try { localStorage.setItem(KEY, next); } catch (e) { /* private mode: this page only */ }
      apply(next);
    });
  });
})();
