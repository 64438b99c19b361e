// Live table: an element with data-live-campaign opens the campaign's WebSocket; each frame is dispatched
// as a "herotable:frame" DOM event (detail = the frame), and elements with hx-trigger="live from:body"
// reload themselves through htmx.
(function () {
  function status(text) {
    var el = document.getElementById("live-status");
    if (el) { el.textContent = text; el.className = "live " + (text === "live" ? "" : "off"); }
  }
  function connect(root) {
    var id = root.getAttribute("data-live-campaign");
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + "/ws/campaigns/" + id);
    socket.onopen = function () { status("live"); };
    socket.onmessage = function (message) {
      var frame = JSON.parse(message.data);
      document.body.dispatchEvent(new CustomEvent("herotable:frame", { detail: frame }));
      if (window.htmx) { window.htmx.trigger(document.body, "live"); }
    };
    socket.onclose = function (event) {
      if (event.code < 4000) {
        status("reconnecting…");
        setTimeout(function () { connect(root); }, 1000);
      } else {
        // refused or ended by the server (removed, logged out): say why; a session that ended goes to log in
        status(event.reason || "closed");
        if (event.code === 4401) { setTimeout(function () { location.reload(); }, 1500); }
      }
    };
  }

  // A panel does not reload under someone typing or choosing in it; it catches up when they leave it.
  window.herotableIdle = function (panel) {
    // busy only while the user has changed the field they are in; an untouched field never holds back news
    var active = document.activeElement;
    var changed = false;
    if (active && active.tagName === "SELECT") {
      changed = Array.prototype.some.call(active.options, function (o) { return o.selected !== o.defaultSelected; });
    } else if (active && /^(INPUT|TEXTAREA)$/.test(active.tagName)) {
      changed = active.type === "checkbox" ? active.checked !== active.defaultChecked : active.value !== active.defaultValue;
    }
    var busy = changed && panel.contains(active);
    if (busy) { panel.setAttribute("data-stale", "1"); }
    return !busy;
  };
  document.addEventListener("focusout", function (event) {
    var panel = event.target.closest ? event.target.closest("[data-stale]") : null;
    if (panel && !(event.relatedTarget && panel.contains(event.relatedTarget))) {
      panel.removeAttribute("data-stale");
      if (window.htmx) { window.htmx.trigger(panel, "refresh"); }
    }
  });

  // Open <details> stay open when their panel reloads.
  var opened = {};
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    // a reload that was already on its way must not wipe a form the user has started to fill in
    if (target.classList && target.classList.contains("panel") && !window.herotableIdle(target)) {
      event.detail.shouldSwap = false;
      return;
    }
    opened[target.id] = Array.prototype.map.call(target.querySelectorAll("details[open][id]"), function (d) { return d.id; });
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    (opened[target.id] || []).forEach(function (id) {
      var d = document.getElementById(id);
      if (d) { d.open = true; }
    });
  });

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.querySelector("[data-live-campaign]");
    if (root) { connect(root); }
  });
})();
