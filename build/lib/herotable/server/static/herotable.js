// The live table. An element with data-live-campaign opens the campaign's WebSocket. Each frame is dispatched as a
// "herotable:frame" DOM event (detail = the frame) and a "live" event (the log reloads itself on it); a frame's
// "html" holds the changed panels as htmx out-of-band fragments, swapped in place here. A panel whose form someone
// is filling in keeps its frame until they leave it. Toasts (announced through aria-live) and an optional tone say
// when the GM calls for your roll, it is your turn, or (for the GM) a request arrives.
(function () {
  var csrf = function () {
    var meta = document.querySelector("meta[name=csrf-token]");
    return meta ? meta.getAttribute("content") : "";
  };

  function status(text) {
    var el = document.getElementById("live-status");
    if (el) { el.textContent = text; el.className = "live " + (text === "live" ? "" : "off"); }
  }

  // --- sound: off until turned on; a short tone made by the Web Audio API ---
  var sound = false;
  var audio = null;
  function tone() {
    if (!sound) { return; }
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) { return; }
    audio = audio || new Ctx();
    var osc = audio.createOscillator();
    var gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.0001, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, audio.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
    osc.connect(gain);
    gain.connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.4);
  }
  function soundToggle(button) {
    sound = !sound;
    try { localStorage.setItem("herotable-sound", sound ? "on" : "off"); } catch (e) { /* private mode */ }
    showSound(button);
    if (sound) { tone(); }
  }
  function showSound(button) {
    button.setAttribute("aria-pressed", sound ? "true" : "false");
    button.textContent = sound ? "Sound: on" : "Sound: off";
  }

  // --- toasts ---
  function toast(text, quiet, alert) {
    var box = document.getElementById("toasts");
    if (!box) { return; }
    var item = document.createElement("div");
    item.className = quiet ? "toast note" : "toast alert";
    if (alert) { item.setAttribute("data-alert", alert); }
    var words = document.createElement("span");
    words.textContent = text;
    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "×";
    close.setAttribute("aria-label", "Dismiss");
    close.addEventListener("click", function () { item.remove(); });
    item.appendChild(words);
    item.appendChild(close);
    box.appendChild(item);
    while (box.children.length > 3) {  // the newest three, calls and turns first: the log keeps the rest
      (box.querySelector(".toast.note") || box.firstChild).remove();
    }
    setTimeout(function () { item.remove(); }, quiet ? 5000 : 12000);
    if (!quiet) { tone(); }
  }
  var alerted = null;  // what the page last knew of: calls, turns, requests
  function alerts() {
    var play = document.getElementById("play");
    var now = (play && play.getAttribute("data-alerts") || "").split(" ").filter(Boolean);
    if (alerted !== null) {
      now.forEach(function (key) {
        if (alerted.indexOf(key) >= 0) { return; }
        var kind = key.split(":")[0];
        if (kind === "call") { toast("The GM calls for your roll: it is on your character's card.", false, key); }
        else if (kind === "turn") { toast("Your turn: act from your character's card.", false, key); }
        else if (kind === "request") { toast("A request from a player: open Requests in the bar.", false, key); }
      });
    }
    // a call rolled, a turn taken, a request answered: its toast has said what it had to
    Array.prototype.forEach.call(document.querySelectorAll("#toasts .toast[data-alert]"), function (t) {
      if (now.indexOf(t.getAttribute("data-alert")) < 0) { t.remove(); }
    });
    alerted = now;
  }

  // --- panels: swap in what a frame carries, unless someone is filling in a form there or waits for its answer ---
  var ANSWER_WAIT_MS = 10000;  // a form's answer holds its panel back this long at most
  function waiting(panel) {
    // a form of the panel whose answer is on its way (htmx marks it while it is sent): the frame of what it did may
    // come first, and swapping the panel then would leave the answer with nowhere to go
    return Array.prototype.some.call(panel.querySelectorAll("form.htmx-request"), function (form) {
      return Date.now() - Number(form.getAttribute("data-sent-at") || 0) < ANSWER_WAIT_MS;
    });
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.tagName === "FORM") { elt.setAttribute("data-sent-at", String(Date.now())); }
  });
  function busy(panel) {
    if (waiting(panel)) { return true; }
    // else busy only while the user has changed the field they are in; an untouched field never holds back news
    var active = document.activeElement;
    if (!active || !panel.contains(active)) { return false; }
    if (active.tagName === "SELECT") {
      return Array.prototype.some.call(active.options, function (o) { return o.selected !== o.defaultSelected; });
    }
    if (/^(INPUT|TEXTAREA)$/.test(active.tagName)) {
      return active.type === "checkbox" ? active.checked !== active.defaultChecked : active.value !== active.defaultValue;
    }
    return false;
  }
  function fillCsrf(root) {
    Array.prototype.forEach.call(root.querySelectorAll("input[name=csrf_token]"), function (i) { i.value = csrf(); });
  }
  var held = {};  // panel id -> the newest fragment it held back
  function place(fresh) {
    var old = document.getElementById(fresh.id);
    if (!old) { return; }
    if (busy(old)) {
      held[fresh.id] = fresh;
      old.setAttribute("data-stale", "1");
      if (waiting(old)) { setTimeout(placeHeld, ANSWER_WAIT_MS); }  // an answer that never comes holds it no longer
      return;
    }
    var open = Array.prototype.map.call(old.querySelectorAll("details[open][id]"), function (d) { return d.id; });
    var loaded = {};  // open sections' forms: on screen, and in use, until the fresh panel's own have loaded
    Array.prototype.forEach.call(old.querySelectorAll("details[open][id] > form.action"), function (f) {
      loaded[f.parentElement.id] = f;
    });
    carried.values = typedIn(old);
    carried.focus = document.activeElement && old.contains(document.activeElement) ? document.activeElement.id : "";
    fresh.removeAttribute("hx-swap-oob");
    old.replaceWith(fresh);
    Object.keys(loaded).forEach(function (id) {
      var slot = document.querySelector("#" + CSS.escape(id) + " > .form-slot");
      if (slot) { loaded[id].setAttribute("data-until-loaded", "1"); slot.hidden = true; slot.before(loaded[id]); }
    });
    open.forEach(function (id) { var d = document.getElementById(id); if (d) { d.open = true; } });
    fillCsrf(fresh);
    if (window.htmx) { window.htmx.process(fresh); }
    restore();
    showAnswer();
    if (fresh.id === "play") { alerts(); }
  }
  // What the user had typed or chosen in a redrawn panel's forms, and where they were, carried over to the same
  // controls of the fresh panel: at once for the forms on it, and as an open section's form loads again
  var carried = { values: {}, focus: "" };
  function typedIn(panel) {
    var out = {};
    Array.prototype.forEach.call(panel.querySelectorAll("form.action [id]"), function (c) {
      if (c.tagName === "SELECT") {
        if (Array.prototype.some.call(c.options, function (o) { return o.selected !== o.defaultSelected; })) { out[c.id] = { value: c.value }; }
      } else if (c.type === "checkbox" || c.type === "radio") {
        if (c.checked !== c.defaultChecked) { out[c.id] = { checked: c.checked }; }
      } else if (/^(INPUT|TEXTAREA)$/.test(c.tagName) && c.type !== "hidden" && c.value !== c.defaultValue) {
        out[c.id] = { value: c.value };
      }
    });
    return out;
  }
  function restore() {
    Object.keys(carried.values).forEach(function (id) {
      var c = document.getElementById(id), v = carried.values[id];
      if (!c) { return; }
      if ("checked" in v) { c.checked = v.checked; }
      else if (c.tagName !== "SELECT" || Array.prototype.some.call(c.options, function (o) { return o.value === v.value; })) { c.value = v.value; }
      delete carried.values[id];
    });
    var f = carried.focus && document.getElementById(carried.focus);
    if (f) { f.focus(); carried.focus = ""; }
  }
  document.addEventListener("htmx:load", function (event) {
    // a section's fresh form has loaded: it takes over from the one kept meanwhile, with what was typed there
    var form = event.detail.elt;
    var kept = form && form.parentElement ? form.parentElement.querySelector(":scope > form[data-until-loaded]") : null;
    if (kept) {
      var typed = typedIn(kept);
      Object.keys(typed).forEach(function (id) { carried.values[id] = typed[id]; });
      if (kept.contains(document.activeElement)) { carried.focus = document.activeElement.id; }
      kept.remove();
    }
    restore();
  });
  // A section whose form cannot be loaded (the connection is down, the server refused) says so; opening it again
  // tries again
  function unloaded(event, why) {
    var slot = event.detail.elt;
    if (!slot || !slot.classList || !slot.classList.contains("form-slot")) { return; }
    slot.innerHTML = '<p class="field-error" role="alert"></p>';
    slot.firstChild.textContent = "This form could not be loaded: " + why + ". Close the section and open it again to try again.";
  }
  document.addEventListener("htmx:sendError", function (event) { unloaded(event, "the connection is down"); });
  document.addEventListener("htmx:responseError", function (event) {
    unloaded(event, "the server answered " + event.detail.xhr.status);
  });
  function swapFragments(html) {
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    Array.prototype.slice.call(tpl.content.children).forEach(function (el) {
      if (el.id) { delete held[el.id]; place(el); }
    });
  }
  // once an answer has come (and a drop-down's has said its words), the panels it held back take their newest fragment
  function placeHeld() {
    Object.keys(held).forEach(function (id) {
      var panel = document.getElementById(id);
      if (panel && !busy(panel)) { var fresh = held[id]; delete held[id]; place(fresh); }
    });
  }
  document.addEventListener("htmx:afterRequest", function () { setTimeout(placeHeld, 0); });
  document.addEventListener("focusout", function (event) {
    var panel = event.target.closest ? event.target.closest("[data-stale]") : null;
    if (panel && !(event.relatedTarget && panel.contains(event.relatedTarget))) {
      var fresh = held[panel.id];
      setTimeout(function () {  // after the focus has moved on
        if (fresh && !busy(panel)) { delete held[panel.id]; place(fresh); }
      }, 0);
    }
  });

  // Where the last frame left this page's stream: a socket opened again after a drop carries on from there, so it
  // is sent what it missed, once and in order (a changed role, or a cursor the server no longer takes, says hello).
  var resume = null;
  function connect(root) {
    if (!resume && root.getAttribute("data-live-cursor")) {  // the page's own panels: carry on from where they stand
      resume = { cursor: root.getAttribute("data-live-cursor"), role: root.getAttribute("data-role") };
    }
    var id = root.getAttribute("data-live-campaign");
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var query = resume ? "?after=" + encodeURIComponent(resume.cursor) + "&role=" + encodeURIComponent(resume.role) : "";
    var socket = new WebSocket(scheme + location.host + "/ws/campaigns/" + id + query);
    socket.onopen = function () { status("live"); };
    socket.onmessage = function (message) {
      var frame = JSON.parse(message.data);
      if (frame.cursor && frame.role) { resume = { cursor: frame.cursor, role: frame.role }; }
      if (frame.html) { swapFragments(frame.html); }
      document.body.dispatchEvent(new CustomEvent("herotable:frame", { detail: frame }));
      // the log reads its page afresh: after new events, and after a hello, which may follow events the page was
      // drawn before (it carries the panels, not the log)
      if (window.htmx && (frame.type === "events" || frame.type === "hello")) {
        window.htmx.trigger(document.body, "live");
      }
    };
    socket.onclose = function (event) {
      if (event.code < 4000) {
        status("reconnecting…");
        setTimeout(function () { connect(root); }, 1000);
      } else {
        // refused or ended by the server (removed, logged out, the campaign deleted): say why; a session that ended
        // goes to log in, a deleted campaign's page says it is gone
        status(event.reason || "closed");
        if (event.code === 4401 || event.code === 4404) { setTimeout(function () { location.reload(); }, 1500); }
      }
    };
  }

  // A drop-down of the bar closes on Escape (focus back on its summary) and when another one opens.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    var menu = event.target.closest ? event.target.closest("details[open]") : null;
    if (menu) { menu.open = false; var s = menu.querySelector("summary"); if (s) { s.focus(); } }
  });
  // A section's form loads as the section opens (its slot listens for "herotable:opened"; htmx evaluates no
  // trigger filters here, the page forbids eval)
  document.addEventListener("toggle", function (event) {
    var d = event.target;
    if (!d.open || !d.querySelector) { return; }
    var slot = d.querySelector(":scope > .form-slot");
    if (slot && window.htmx) { window.htmx.trigger(slot, "herotable:opened"); }
  }, true);
  document.addEventListener("toggle", function (event) {
    var d = event.target;
    if (!d.open || !d.classList || !d.classList.contains("menu")) { return; }
    Array.prototype.forEach.call(document.querySelectorAll("details.menu[open]"), function (o) { if (o !== d) { o.open = false; } });
  }, true);

  // A drop-down closes when the user clicks elsewhere.
  document.addEventListener("click", function (event) {
    Array.prototype.forEach.call(document.querySelectorAll("#bar details[open]"), function (d) {
      if (!d.contains(event.target)) { d.open = false; }
    });
  });

  // Every action answers where it was taken. Its answer (the dice and the outcome in words, or a refusal with its
  // tip) stays on the card or roll it was sent from, through the redraws the live frames bring, until the user
  // dismisses it or acts again (a refusal too, so a redraw that closes its form loses nothing); a settled roll's
  // answer moves to its roller's card when the roll is gone. An answer from the bar's drop-downs is a toast.
  // {home: a selector of the card or roll, then: the roller's card once a settled roll is gone, html: the answer}
  var answer = null;
  function homeOf(form) {
    var home = form.closest("[data-character],[data-roll]");
    if (!home) { return null; }
    var key = home.hasAttribute("data-character") ? "data-character" : "data-roll";
    var roller = home.getAttribute("data-roller");
    var section = form.closest(".act[id]");
    return {
      home: "[" + key + '="' + CSS.escape(home.getAttribute(key)) + '"]',
      then: roller ? '#play [data-character="' + CSS.escape(roller) + '"]' : null,
      near: section && home.querySelector(".gm-acts") && home.querySelector(".gm-acts").contains(section) ? section.id : null,
    };
  }
  function showAnswer() {
    Array.prototype.forEach.call(document.querySelectorAll(".answer"), function (a) {
      if (!answer || a.getAttribute("data-stamp") !== String(answer.stamp)) { a.remove(); }
    });
    var home = answer && (document.querySelector(answer.home) || (answer.then && document.querySelector(answer.then)));
    if (!home || home.querySelector('.answer[data-stamp="' + answer.stamp + '"]')) { return; }  // shown already
    var box = document.createElement("div");
    box.className = "answer";
    box.setAttribute("data-stamp", String(answer.stamp));
    box.innerHTML = answer.html;
    var close = document.createElement("button");
    close.type = "button";
    close.className = "dismiss";
    close.textContent = "×";
    close.setAttribute("aria-label", "Dismiss this answer");
    close.addEventListener("click", function () { answer = null; showAnswer(); });
    box.appendChild(close);
    // beside the GM's ruling it answers, when it came from one (the card's top may be far up the screen), else
    // under the card's or roll's heading
    var near = answer.near && home.querySelector("#" + CSS.escape(answer.near));
    var head = home.querySelector(":scope > header, :scope > h2");
    if (near) { (near.querySelector(":scope > summary") || near).after(box); }
    else if (head) { head.after(box); } else { home.prepend(box); }
  }
  function wordsOf(html) {
    // the answer's words: tags become spaces, and a textarea turns entities (&#39;) back into characters
    var decoder = document.createElement("textarea");
    decoder.innerHTML = html.replace(/<[^>]+>/g, " ");
    return decoder.value.replace(/\s+/g, " ").trim();
  }
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (!form || form.tagName !== "FORM") { return; }  // a section loading its form is no action sent
    var xhr = event.detail.xhr;
    if (!event.detail.successful || !xhr) { return; }
    var refused = /role="alert"/.test(xhr.responseText);
    var home = homeOf(form);
    if (home) {
      // only the answer that settled a roll follows it to its roller's card: an Accept the other side has still to
      // match, or a refusal, goes with the roll
      var follows = !refused && /data-settled/.test(xhr.responseText);
      answer = {
        home: home.home, then: follows ? home.then : null, near: home.near, html: xhr.responseText,
        stamp: (answer ? answer.stamp : 0) + 1,
      };
      var result = form.querySelector(".result");
      if (result) { result.innerHTML = ""; }  // said on the card, once
      showAnswer();
    }
    if (refused) { return; }
    var menu = form.closest("#bar details");
    if (menu) { var live = (menu.id && document.getElementById(menu.id)) || menu; live.open = false; }
    var words = wordsOf(xhr.responseText);
    if (words && !home) { toast(words, true); }  // else the card (or the roller's, once the roll is gone) says it
  });
  // What others did that concerns the table (a roll, an outcome) is a toast for each member who sees it.
  document.body.addEventListener("herotable:frame", function (event) {
    var frame = event.detail;
    var root = document.querySelector("[data-live-campaign]");
    var me = root ? root.getAttribute("data-user") : "";
    if (frame.type !== "events" || !frame.events) { return; }
    // an undo makes an answer stale, and so does the table moving on: a round, a conflict or a scene begun or ended
    var moved = /^action\.undone$|_(started|ended)$|^ltl\.round_ended$|^cv\.round_started$/;
    if (answer && frame.events.some(function (e) { return moved.test(e.type); })) { answer = null; showAnswer(); }
    var news = frame.events.filter(function (e) { return e.headline && e.text && e.actor !== me && !e.undone; });
    if (!news.length) { return; }
    var text = news.slice(0, 2).map(function (e) { return e.text; }).join(" · ");
    if (news.length > 2) { text += " · and " + (news.length - 2) + " more in the log"; }
    toast(text, true);
  });

  // A button with data-copy copies the text of the field it names (an invitation link) and says so.
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button[data-copy]") : null;
    var field = button && document.getElementById(button.getAttribute("data-copy"));
    if (!field) { return; }
    function said(words) {
      button.textContent = words;
      setTimeout(function () { button.textContent = "Copy the link"; }, 4000);
    }
    var copied = navigator.clipboard && window.isSecureContext
      ? navigator.clipboard.writeText(field.value)
      : Promise.reject(new Error("no clipboard here"));
    copied.then(function () { said("Copied"); }, function () {
      field.select();  // a page without the clipboard (plain http from another machine): selected, to copy by hand
      said(document.execCommand && document.execCommand("copy") ? "Copied" : "Selected: press Ctrl+C");
    });
  });

  // The new-campaign form shows the options of the game chosen, and only those.
  function gameOptions() {
    var chosen = document.getElementById("new-ruleset");
    if (!chosen) { return; }
    Array.prototype.forEach.call(document.querySelectorAll(".game-options[data-game]"), function (d) {
      d.hidden = d.getAttribute("data-game") !== chosen.value;
    });
  }
  document.addEventListener("change", function (event) { if (event.target.id === "new-ruleset") { gameOptions(); } });
  document.addEventListener("DOMContentLoaded", gameOptions);

  // Keyboard shortcuts on the table page (the Keys button or "?" lists them): each takes the focus to a place, and
  // Enter or Space acts there; none fires while the user types in a field or holds a modifier.
  function focusFirst(selectors) {
    for (var i = 0; i < selectors.length; i++) {
      var el = document.querySelector(selectors[i]);
      if (el && el.offsetParent !== null) {
        var d = el.closest("details:not([open])");
        if (d && !el.matches("summary")) { d.open = true; }
        el.focus();
        el.scrollIntoView({ block: "nearest" });
        return true;
      }
    }
    return false;
  }
  function showTab(name) {
    var page = document.querySelector(".table-page");
    if (!page) { return; }
    page.setAttribute("data-tab", name);
    Array.prototype.forEach.call(document.querySelectorAll(".tabs .tab"), function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-tab") === name ? "true" : "false");
    });
    if (name === "log") {  // the log was hidden: down to its newest entry
      var list = document.getElementById("log-entries");
      if (list) { list.scrollTop = list.scrollHeight; }
    }
  }
  var KEYS = {
    m: function () {
      return focusFirst([
        "#play .char.mine .card-acts summary", "#play .char.mine .card-acts button",
        "#play .char .card-acts summary", "#play .char summary",
      ]);
    },
    a: function () {
      showTab("table");
      return focusFirst(["#play article.roll form[data-action$='settle'] button", "#play article.roll summary",
        "#play article.roll button"]);
    },
    b: function () { return focusFirst(["#bar .menus > details > summary", "#bar summary", "#bar button"]); },
    l: function () { showTab("log"); return focusFirst(["#log-entries"]); },
    c: function () { showTab("chat"); return focusFirst(["#chat-text"]); },
  };
  document.addEventListener("keydown", function (event) {
    var dialog = document.getElementById("keys");
    if (!dialog || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) { return; }
    var t = event.target;
    if (t && (/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.isContentEditable)) { return; }
    if (event.key === "?") {
      event.preventDefault();
      if (!dialog.open) { dialog.showModal(); }
      return;
    }
    if (dialog.open || !KEYS[event.key]) { return; }
    if (KEYS[event.key]()) { event.preventDefault(); }
  });
  document.addEventListener("click", function (event) {
    var tab = event.target.closest ? event.target.closest(".tabs .tab") : null;
    if (tab) { showTab(tab.getAttribute("data-tab")); return; }
    if (event.target.id === "keys-help") {
      var dialog = document.getElementById("keys");
      if (dialog && !dialog.open) { dialog.showModal(); }
    }
  });

  // A plain form with data-confirm (removing a member, deleting a character, handing the GM role over) asks first;
  // htmx forms ask through hx-confirm.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form && form.getAttribute ? form.getAttribute("data-confirm") : null;
    if (question && !window.confirm(question)) { event.preventDefault(); }
  });

  // After the user's own action the result area says what happened; the live frame brings the rest.
  document.addEventListener("DOMContentLoaded", function () {
    var root = document.querySelector("[data-live-campaign]");
    var button = document.getElementById("sound-toggle");
    if (button) {
      try { sound = localStorage.getItem("herotable-sound") === "on"; } catch (e) { sound = false; }
      showSound(button);
      button.addEventListener("click", function () { soundToggle(button); });
    }
    if (root) { alerts(); connect(root); }
  });
})();
