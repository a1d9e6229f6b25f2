/* The game viewer of report.html's example games and of `fishing2sim serve`'s replay page
   (fishing2sim/report/viewer.py). Its data is the JSON in <script id="f2-games">:
   {"rows": [...], "games": {key: replay}}; every text from it is shown as text
   (textContent), never as markup. Each <div class="f2-game" data-key> is drawn when it
   is opened: by a link to #game-c{c}-g{g}, or to #examples-c{c}-{figure} (the group's
   first game). Keys: left / right arrows (and the buttons) step through the tricks,
   Home / End go to the first / last trick. */
(function () {
  'use strict';
  var data = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function label(g, i) {
    var l = g.labels || [];
    return (typeof i === 'number' && i >= 0 && i < l.length) ? String(l[i]) : String(i);
  }
  function seatName(g, p) {
    var bots = g.bots || [];
    return 'seat ' + p + (bots[p] !== undefined ? ' (' + bots[p] + ')' : '');
  }
  function fmt(v) {
    if (typeof v !== 'number') { return String(v); }
    return (v < 0 ? '\u2212' : '') + Math.abs(v).toFixed(2).replace(/\.?0+$/, '');
  }

  function roundTable(g, round) {
    var t = el('table', 'f2-rounds');
    var head = el('tr');
    head.appendChild(el('th', null, 'round'));
    for (var p = 0; p < g.players; p++) { head.appendChild(el('th', null, seatName(g, p))); }
    t.appendChild(el('thead')).appendChild(head);
    var body = t.appendChild(el('tbody'));
    (g.rounds || []).forEach(function (r) {
      var tr = el('tr', r.round === round ? 'f2-now' : '');
      tr.appendChild(el('th', null, r.round));
      (r.points || []).forEach(function (x) { tr.appendChild(el('td', null, x)); });
      body.appendChild(tr);
    });
    return t;
  }

  function handsAt(g, k) {
    /* a trick's hands: stored, or the previous trick's less its plays */
    if (!g.hands) { g.hands = []; }
    for (var i = g.hands.length; i <= k; i++) {
      var t = g.tricks[i];
      if (t.hands || i === 0) { g.hands.push(t.hands || []); continue; }
      var prev = g.hands[i - 1].map(function (h) { return h.slice(); });
      (g.tricks[i - 1].plays || []).forEach(function (pl) {
        var h = prev[pl[0]] || [], j = h.indexOf(pl[1]);
        if (j >= 0) { h.splice(j, 1); }
      });
      g.hands.push(prev);
    }
    return g.hands[k];
  }

  function decisionBlock(g, d) {
    var box = el('div', 'f2-decision');
    var opts = d.options || [];
    var chosen = d.chosen !== undefined ? d.chosen : opts[d.choice];
    box.appendChild(el('p', null, seatName(g, d.seat) + ', ' + String(d.kind).replace(/_/g, '-') +
      ': chose ' + label(g, chosen) + ' \u2014 ' + (d.by || 'no scores')));
    if (!d.values) { return box; }
    var best = 0;
    d.values.forEach(function (v, i) { if (v > d.values[best]) { best = i; } });
    var t = el('table', 'f2-reasons');
    var head = el('tr');
    ['option', 'value'].concat(d.spread ? ['spread (10th\u201390th pct.)'] : [])
      .forEach(function (h) { head.appendChild(el('th', null, h)); });
    t.appendChild(el('thead')).appendChild(head);
    var body = t.appendChild(el('tbody'));
    opts.forEach(function (o, i) {
      var tr = el('tr', (i === d.choice ? 'f2-chosen' : '') + (i === best ? ' f2-best' : ''));
      tr.appendChild(el('td', null, label(g, o) + (i === d.choice ? ' (chosen)' : '')));
      tr.appendChild(el('td', null, fmt(d.values[i])));
      if (d.spread) {
        var s = d.spread[i] || [];
        tr.appendChild(el('td', null, fmt(s[0]) + ' to ' + fmt(s[1])));
      }
      body.appendChild(tr);
    });
    box.appendChild(t);
    return box;
  }

  function drawTrick(v) {
    var g = v.game, k = v.at, tr = (g.tricks || [])[k] || {};
    v.pos.textContent = 'trick ' + (k + 1) + ' of ' + g.tricks.length + ' (round ' +
      tr.round + ', trick ' + tr.trick + ')';
    v.root.setAttribute('data-trick', String(k));
    var played = {};
    (tr.plays || []).forEach(function (pl) { played[pl[0]] = pl[1]; });
    var t = el('table', 'f2-seats');
    var head = el('tr');
    ['seat', 'hand before the trick (its card played marked)', 'boat', 'fisher'].forEach(function (h) {
      head.appendChild(el('th', null, h));
    });
    t.appendChild(el('thead')).appendChild(head);
    var body = t.appendChild(el('tbody'));
    for (var p = 0; p < g.players; p++) {
      var row = el('tr', p === tr.caught_by ? 'f2-catcher' : '');
      row.appendChild(el('th', null, seatName(g, p) + (p === tr.leader ? ' \u2022 leads' : '')));
      var hand = el('td', 'f2-hand');
      (handsAt(g, k)[p] || []).forEach(function (c) {
        hand.appendChild(el('span', c === played[p] ? 'f2-card f2-played' : 'f2-card',
                            label(g, c)));
        hand.appendChild(document.createTextNode(' '));
      });
      row.appendChild(hand);
      row.appendChild(el('td', null, (tr.boats || [])[p]));
      row.appendChild(el('td', null, (tr.fishers || [])[p]));
      body.appendChild(row);
    }
    var plays = el('ol', 'f2-plays');
    (tr.plays || []).forEach(function (pl) {
      plays.appendChild(el('li', null, 'seat ' + pl[0] + ': ' + label(g, pl[1])));
    });
    var facts = el('p', 'f2-facts', 'trump: ' + (tr.trump || 'none') + ' \u00b7 ocean: ' +
      tr.ocean + ' cards' + ' \u00b7 caught by ' +
      (tr.caught_by === null || tr.caught_by === undefined ? 'nobody' : seatName(g, tr.caught_by)));
    var notes = el('ul', 'f2-notes');
    (tr.notes || []).forEach(function (n) { notes.appendChild(el('li', null, n)); });
    var reasons = el('div', 'f2-decisions');
    (tr.decisions || []).forEach(function (d) { reasons.appendChild(decisionBlock(g, d)); });
    if (!(tr.decisions || []).length) {
      reasons.appendChild(el('p', null, 'No decision of a seat with reasons in this trick.'));
    }
    v.body.textContent = '';
    [facts, t, el('p', null, 'The trick, in order of play:'), plays, notes,
     el('h5', null, 'The decisions and the bots\u2019 reasons'), reasons,
     el('h5', null, 'Points by round'), roundTable(g, tr.round)].forEach(function (x) {
      v.body.appendChild(x);
    });
    v.prev.disabled = k === 0;
    v.next.disabled = k === g.tricks.length - 1;
  }

  function viewer(g) {
    var root = el('div', 'f2-viewer');
    root.tabIndex = 0;
    root.setAttribute('role', 'group');
    root.setAttribute('aria-label', 'game viewer: arrow keys step through the tricks');
    root.appendChild(el('h4', null, (g.source ? g.source + ' \u00b7 ' : '') + g.title + ', ' +
      g.players + ' players, seed ' + g.seed + ', game ' + g.game));
    var end = g.end || {};
    var fin = el('p', 'f2-final', 'End: ' + (end.reason || '?') + ' in round ' + end.round +
      '; points ' + (end.points || []).join(', ') + '; won by ' +
      (end.winners || []).map(function (p) { return seatName(g, p); }).join(' and '));
    fin.setAttribute('data-points', JSON.stringify(end.points || []));
    root.appendChild(fin);
    root.appendChild(el('p', 'f2-why', 'Reasons shown: ' + (g.reasons || []).map(function (r, p) {
      return seatName(g, p) + ': ' + r;
    }).join(' \u00b7 ')));
    var nav = el('div', 'f2-nav');
    var v = {game: g, root: root, at: 0};
    function btn(text, aria, step) {
      var b = el('button', null, text);
      b.type = 'button';
      b.setAttribute('aria-label', aria);
      b.addEventListener('click', function () { go(v, step); });
      nav.appendChild(b);
      return b;
    }
    btn('first', 'first trick', -1e9);
    v.prev = btn('\u25c0 previous', 'previous trick', -1);
    v.pos = el('span', 'f2-pos');
    v.pos.setAttribute('aria-live', 'polite');
    nav.appendChild(v.pos);
    v.next = btn('next \u25b6', 'next trick', 1);
    btn('last', 'last trick', 1e9);
    root.appendChild(nav);
    v.body = root.appendChild(el('div', 'f2-body'));
    root.addEventListener('keydown', function (e) {
      var step = {ArrowLeft: -1, ArrowRight: 1, Home: -1e9, End: 1e9}[e.key];
      if (step === undefined || e.target.tagName === 'INPUT') { return; }
      e.preventDefault();
      go(v, step);
    });
    if (!(g.tricks || []).length) {
      v.body.appendChild(el('p', null, 'The game has no trick.'));
      return root;
    }
    drawTrick(v);
    return root;
  }
  function go(v, step) {
    var n = v.game.tricks.length;
    v.at = Math.max(0, Math.min(n - 1, v.at + step));
    drawTrick(v);
  }

  function draw(box) {
    if (box.getAttribute('data-drawn')) { return; }
    box.setAttribute('data-drawn', '1');
    var games = (data && data.games) || {};
    var pair = el('div', 'f2-pair');
    [box.getAttribute('data-key'), box.getAttribute('data-pair')].forEach(function (k) {
      if (!k) { return; }
      var g = games[k];
      pair.appendChild(g ? viewer(g) : el('p', 'f2-missing', 'game ' + k + ' is not in the page'));
    });
    box.appendChild(pair);
  }

  function open(id, scroll) {
    var target = id ? document.getElementById(id) : null;
    if (!target) { return; }
    var box = target;
    if (target.classList.contains('ex-group')) {
      var first = target.querySelector('a[href^="#game-"]');
      box = first ? document.getElementById(first.getAttribute('href').slice(1)) : null;
    }
    if (!box || !box.classList.contains('f2-game')) { return; }
    document.querySelectorAll('.f2-game').forEach(function (x) {
      if (x !== box && x.getAttribute('data-fixed') === null) { x.hidden = true; }
    });
    box.hidden = false;
    draw(box);
    if (scroll && target === box) { box.scrollIntoView(); }
    var v = box.querySelector('.f2-viewer');
    if (v && target === box) { v.focus({preventScroll: !scroll}); }
  }

  function unpack(src) {
    // the games' JSON, gzipped and in base64 (report/viewer.py embed_packed), or plain
    if (src.type !== 'application/gzip+base64') {
      return Promise.resolve(JSON.parse(src.textContent));
    }
    var bin = atob(src.textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text().then(JSON.parse);
  }

  function init() {
    var src = document.getElementById('f2-games');
    if (!src) { return; }
    unpack(src).then(function (d) { data = d; }, function () { data = {games: {}}; })
      .then(start);
  }

  function start() {
    document.querySelectorAll('.f2-game[data-fixed]').forEach(draw);
    window.addEventListener('hashchange', function () { open(location.hash.slice(1), true); });
    if (location.hash) { open(location.hash.slice(1), true); }
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else { init(); }
})();
