/* report.html's one script (harness/report/html_script.js): wire logs built on demand.
 * A full run holds thousands of wire entries; as HTML rows they were most of the page
 * and of its load time. They are one JSON array instead, deflated and base64-encoded
 * in an inert block at the end of the page: it is inflated the first time a log is
 * needed, and a case's table is built when its placeholder comes into view (the case
 * opened, or an open case scrolled to). Target text goes in as textContent, never as
 * markup. The page's Content Security Policy admits this script by its SHA-256. */
'use strict';
(function () {
  var slots = document.querySelectorAll('.wire-slot');

  function cell(row, text, pre) {
    var td = row.insertCell();
    if (pre) {
      var p = document.createElement('pre');
      p.textContent = text;
      td.appendChild(p);
    } else {
      td.textContent = text;
    }
    return td;
  }

  /* An entry: [time, direction, bytes, text] and a 1 when the bytes were not UTF-8. */
  function row(table, e) {
    var tr = table.insertRow();
    tr.className = 'd-' + (/^[a-z]+$/.test(e[1]) ? e[1] : 'other');
    cell(tr, e[0]);
    cell(tr, e[1]);
    cell(tr, String(e[2]));
    var td = cell(tr, e[3], true);
    if (e[4]) {
      var note = document.createElement('small');
      note.textContent = 'not valid UTF-8: shown with U+FFFD; the exact bytes are in ' +
                         'report.json (base64)';
      td.appendChild(note);
    }
  }

  var logs = null;

  /* Every case's log, inflated once: a promise of the array. */
  function allLogs() {
    if (!logs) {
      var text = atob(document.getElementById('wire-logs').textContent);
      var bytes = new Uint8Array(text.length);
      for (var i = 0; i < text.length; i++)
        bytes[i] = text.charCodeAt(i);
      var inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
      logs = new Response(inflated).text().then(JSON.parse);
    }
    return logs;
  }

  function table(log) {
    var t = document.createElement('table');
    t.className = 'wire';
    var head = t.createTHead().insertRow();
    ['t (s)', 'dir', 'bytes', 'data'].forEach(function (h) {
      var th = document.createElement('th');
      th.textContent = h;
      head.appendChild(th);
    });
    var body = t.createTBody();
    log.wire.forEach(function (e) { row(body, e); });
    return t;
  }

  function render(slot) {
    if (slot.dataset.shown)
      return;
    slot.dataset.shown = '1';
    var shown;
    try {
      shown = allLogs();
    } catch (err) {
      shown = Promise.reject(err);
    }
    shown.then(function (all) {
      var log = all[Number(slot.dataset.log)];
      slot.replaceChildren(table(log));
      if (log.dropped) {
        var p = document.createElement('p');
        p.textContent = log.dropped + ' more wire entries were not kept.';
        slot.appendChild(p);
      }
    }, function (err) {
      slot.textContent = 'This browser could not show the wire log (' + err + '); ' +
                         'it is in report.json.';
    });
  }

  var seen = new IntersectionObserver(function (entries) {
    entries.forEach(function (en) {
      if (en.isIntersecting) {
        seen.unobserve(en.target);
        render(en.target);
      }
    });
  }, {rootMargin: '400px'});
  slots.forEach(function (s) { seen.observe(s); });

  /* Find in page searches what is in the DOM; printing shows every open case. */
  function renderAll() {
    slots.forEach(render);
    all.disabled = true;
  }
  var all = document.createElement('button');
  all.type = 'button';
  all.textContent = 'load every wire log';
  all.title = 'so that find in page searches them too';
  all.addEventListener('click', renderAll);
  var nav = document.querySelector('nav.filters');
  if (nav && slots.length)
    nav.appendChild(all);
  window.addEventListener('beforeprint', renderAll);
})();
