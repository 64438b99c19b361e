// Live table: an element with data-live-campaign opens the campaign's WebSocket; each frame is dispatched
// as a "herotable:frame" DOM event (detail = the frame), and elements with hx-trigger="live from:body"
// reload themselves through htmx.
(function () {
  function connect(root) {
    var id = root.getAttribute("data-live-campaign");
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + "/ws/campaigns/" + id);
    socket.onmessage = function (message) {
      var frame = JSON.parse(message.data);
      document.body.dispatchEvent(new CustomEvent("herotable:frame", { detail: frame }));
      if (window.htmx) { window.htmx.trigger(document.body, "live"); }
    };
    socket.onclose = function (event) {
      if (event.code < 4000) { setTimeout(function () { connect(root); }, 1000); }
    };
  }
  document.addEventListener("DOMContentLoaded", function () {
    var root = document.querySelector("[data-live-campaign]");
    if (root) { connect(root); }
  });
})();
