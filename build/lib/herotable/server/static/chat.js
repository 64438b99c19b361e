// The log and chat panels (parts/log.html, parts/chat.html).
// - The log reads down to the newest entry, and follows it as entries come, unless the reader has scrolled up to
//   read back: then it stays where they are.
// - A live reload of the log keeps the filter chosen, and waits while older pages are open (the reader is reading
//   back); "Back to the newest" brings the newest page.
// - In the chat box, Enter sends and Shift+Enter starts a new line.
(function () {
  function panel() { return document.getElementById("log-panel"); }

  // a request for the log made from outside the panel (a live reload of the section holding it)
  function reload(event) {
    var p = panel();
    var elt = event.detail.elt;
    var d = event.detail;
    var path = d.path || (d.requestConfig && d.requestConfig.path) || (d.pathInfo && d.pathInfo.requestPath) || "";
    return p && elt && !p.contains(elt) && /\/table\/log(\?|$)/.test(path);
  }

  document.addEventListener("htmx:configRequest", function (event) {
    if (!reload(event)) { return; }
    var filter = panel().getAttribute("data-filter");
    if (filter && !event.detail.parameters.filter) { event.detail.parameters.filter = filter; }
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    var p = panel();
    if (p && p.hasAttribute("data-paged") && reload(event)) {
      event.preventDefault();
      p.setAttribute("data-behind", "1");
    }
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest(".log-newest, .log-filters .filter")) { following = true; }
    var older = event.target.closest ? event.target.closest("[data-log-older]") : null;
    var p = panel();
    if (older && p) {
      p.setAttribute("data-paged", "1");
      var newest = p.querySelector(".log-newest");
      if (newest) { newest.hidden = false; }
    }
  });

  function list() { return document.getElementById("log-entries"); }
  function atEnd(l) { return l.scrollHeight - l.scrollTop - l.clientHeight < 24; }
  var following = true;  // the reader is at the newest entry: keep them there
  document.addEventListener("scroll", function (event) {
    if (event.target === list()) { following = atEnd(event.target); }
  }, true);
  function toEnd() {
    var l = list();
    if (l && following && !panel().hasAttribute("data-paged")) { l.scrollTop = l.scrollHeight; }
  }
  function isLog(target) {
    return target && (target.id === "log" || target.id === "log-panel" || (target.closest && target.closest("#log")));
  }
  var kept = null;  // where a reader who scrolled up was, while the log is drawn again
  document.addEventListener("htmx:beforeSwap", function (event) {
    var l = list();
    kept = isLog(event.detail.target) && l && !following ? l.scrollTop : null;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    if (!isLog(event.detail.target)) { return; }
    if (event.detail.elt && event.detail.elt.hasAttribute && event.detail.elt.hasAttribute("data-log-older")) { return; }
    var l = list();
    if (kept !== null && l) { l.scrollTop = kept; kept = null; return; }  // they stay where they were reading
    toEnd();
  });
  document.addEventListener("DOMContentLoaded", toEnd);
  // a log that was hidden (a phone's other tab, a narrow window widened) has no height to scroll: once it is drawn
  // at its size again, a reader who was following is taken down to the newest entry
  if (window.ResizeObserver) {
    var watched = null;
    var sized = new ResizeObserver(function () { toEnd(); });
    var watch = function () {
      var l = list();
      if (!l || l === watched) { return; }
      if (watched) { sized.unobserve(watched); }
      sized.observe(l);
      watched = l;
    };
    document.addEventListener("DOMContentLoaded", watch);
    document.addEventListener("htmx:afterSettle", watch);
  }

  document.addEventListener("keydown", function (event) {
    var box = event.target;
    if (box.id !== "chat-text" || event.key !== "Enter" || event.shiftKey || event.isComposing) { return; }
    event.preventDefault();
    if (box.form && box.value.trim()) { box.form.requestSubmit(); }
  });
  // after sending, the box is new: give it the focus back so the conversation goes on
  document.addEventListener("htmx:afterSettle", function (event) {
    var config = event.detail.requestConfig;
    if (config && config.verb === "post" && /\/chat$/.test(config.path || "")) {
      var box = document.getElementById("chat-text");
      if (box) { box.focus(); }
    }
  });
})();
