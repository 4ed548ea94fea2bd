// balance studio: the page. Plain JavaScript, no build step; every figure comes from the API
// (balance/studio/app.py), which computes it exactly as the command line does.
"use strict";

const S = {
  game: null, published: {}, current: 1, version: null, tier: null, versions: [], picked: [],
  cards: null, cardsSort: { key: "delta", desc: true }, cardsFor: null, tune: null,
};

// ---------------------------------------------------------------------------------------------
// small helpers

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const $ = (id) => document.getElementById(id);

async function api(method, path, body, raw) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.body = raw ? body : JSON.stringify(body);
    options.headers["Content-Type"] = raw ? "text/plain" : "application/json";
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    return { ok: false, status: 0, data: { error: "the studio's server does not answer (stopped?)" } };
  }
  let data = null;
  try { data = await response.json(); } catch (error) { data = { error: `answer ${response.status}` }; }
  return { ok: response.ok, status: response.status, data };
}

function fixed(value, places) {
  return value === null || value === undefined ? "—" : Number(value).toFixed(places);
}
function signed(value, places = 2) {
  if (value === null || value === undefined) return "—";
  const text = Number(value).toFixed(places);
  return value >= 0 ? "+" + text : text;
}
function interval(ci, places = 2) {
  if (!ci || ci[0] === null || ci[0] === undefined) return "";
  return `[${signed(ci[0], places)}, ${signed(ci[1], places)}]`;
}
function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
function number(value) { return Number(value).toLocaleString("en-US"); }

const PERCENT = ["advantage", "share", "rate"];
function shown(kind, value, ci) {  // a figure's value as whatif shows it
  if (value === null || value === undefined) return "—";
  if (PERCENT.includes(kind)) {
    const scale = 100;
    const text = kind === "advantage" ? `${signed(value * scale)} pp` : `${fixed(value * scale, 2)} %`;
    const band = ci && ci[0] !== null ? ` [${fixed(ci[0] * scale, 2)}, ${fixed(ci[1] * scale, 2)}]` : "";
    return text + band;
  }
  return `${fixed(value, 3)}` + (ci && ci[0] !== null ? ` [${fixed(ci[0], 3)}, ${fixed(ci[1], 3)}]` : "");
}
function changeShown(kind, change, ci) {
  if (change === null || change === undefined) return "—";
  const scale = PERCENT.includes(kind) ? 100 : 1;
  const unit = PERCENT.includes(kind) ? " pp" : "";
  const band = ci && ci[0] !== null ? ` [${signed(ci[0] * scale, 3)}, ${signed(ci[1] * scale, 3)}]` : "";
  return `${signed(change * scale, 3)}${unit}${band}`;
}
function pValue(p) {
  if (p === null || p === undefined) return "—";
  return p < 1e-4 ? "< 0.0001" : Number(p).toFixed(4);
}
function controlOf(key) { return S.game.controls.find((c) => c.key === key); }
function settings() { return (S.version && S.version.settings) || {}; }

// ---------------------------------------------------------------------------------------------
// the controls: one per variant key, each with data-key and its error beside it

function valueOf(control) {
  const set = settings();
  return Object.prototype.hasOwnProperty.call(set, control.key) ? set[control.key] : control.value;
}

function showError(key, message) {
  for (const node of document.querySelectorAll("[data-error-for]")) {
    if (node.dataset.errorFor === key) node.textContent = message || "";
  }
}
function clearErrors() {
  for (const node of document.querySelectorAll("#rules [data-error-for]")) node.textContent = "";
}

function tomlText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "[" + value.map(tomlText).join(", ") + "]";
  if (typeof value === "object") return "{" + Object.entries(value).map(([k, v]) => `${k} = ${tomlText(v)}`).join(", ") + "}";
  return String(value);
}

function buildControls() {
  const box = $("controls");
  box.replaceChildren();
  let section = null;
  for (const control of S.game.controls) {
    if (control.section && control.section !== section) {
      section = control.section;
      box.append(el("h3", { text: `[${section}]` }));
    }
    const id = "control-" + control.key.replace(/[^a-zA-Z0-9_-]/g, "-");
    const wrap = el("div", { class: "control", "data-key": control.key });
    wrap.append(el("label", { for: id, text: control.key }), el("p", { class: "what", text: control.description }));
    wrap.append(inputFor(control, id));
    wrap.append(el("p", { class: "published", text: control.value === null ? "published: as the rules have it"
      : `published: ${tomlText(control.value).slice(0, 80)}` }));
    wrap.append(el("p", { class: "error", "data-error-for": control.key, role: "alert" }));
    box.append(wrap);
  }
}

function inputFor(control, id) {
  const key = control.key;
  if (control.kind === "bool") {
    return el("input", { type: "checkbox", id, onchange: (e) => change(key, e.target.checked) });
  }
  if (control.kind === "int" || control.kind === "float") {
    return el("input", { type: "number", id, step: control.kind === "int" ? "1" : "any",
      onchange: (e) => {
        const text = e.target.value.trim();
        if (text === "") return change(key, control.value === null ? undefined : control.value);
        const value = Number(text);
        if (!Number.isFinite(value) || (control.kind === "int" && !Number.isInteger(value))) {
          showError(key, `'${key}' takes ${control.kind === "int" ? "a whole number" : "a number"}, not ${text}`);
          return;
        }
        change(key, value);
      } });
  }
  if (control.kind === "choice") {
    const select = el("select", { id, onchange: (e) => change(key, e.target.value) });
    for (const choice of control.choices) select.append(el("option", { value: choice, text: choice }));
    return select;
  }
  if (control.kind === "list") {
    const wrap = el("div", { id });
    wrap.append(el("div", { class: "chips" }));
    const add = el("input", { type: "text", placeholder: "add an item", "aria-label": `add to ${key}`, size: 10 });
    const button = el("button", { type: "button", text: "put in", onclick: () => {
      const text = add.value.trim();
      if (!text) return;
      const item = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
      const list = [...(valueOf(control) || [])];
      if (list.some((v) => same(v, item))) { showError(key, `${key} already holds ${text}`); return; }
      list.push(item);
      add.value = "";
      change(key, list);
    } });
    wrap.append(el("div", { class: "buttons" }, add, button));
    return wrap;
  }
  return el("input", { type: "text", id, onchange: (e) => {
    const text = e.target.value.trim();
    change(key, text === "" ? undefined : text);
  } });
}

function showControls() {
  const set = settings();
  for (const control of S.game.controls) {
    const wrap = document.querySelector(`.control[data-key="${CSS.escape(control.key)}"]`);
    if (!wrap) continue;
    const value = valueOf(control);
    wrap.classList.toggle("changed", Object.prototype.hasOwnProperty.call(set, control.key));
    if (control.kind === "bool") wrap.querySelector("input").checked = Boolean(value);
    else if (control.kind === "int" || control.kind === "float") wrap.querySelector("input").value = value === null ? "" : value;
    else if (control.kind === "choice") wrap.querySelector("select").value = value;
    else if (control.kind === "list") {
      const chips = wrap.querySelector(".chips");
      chips.replaceChildren();
      const published = control.value || [];
      for (const item of value || []) {
        chips.append(el("span", { class: "chip" + (published.some((v) => same(v, item)) ? "" : " added"), "data-item": String(item) },
          String(item),
          el("button", { type: "button", title: `take ${item} out`, "aria-label": `take ${item} out`,
            onclick: () => change(control.key, (valueOf(control) || []).filter((v) => !same(v, item))) }, "×")));
      }
    } else wrap.querySelector("input").value = tomlText(value);
  }
  if (S.game.rules_text !== null) $("rules-text").value = (S.version && S.version.rules_text) || S.game.rules_text;
}

async function change(key, value) {
  const next = { ...settings() };
  const control = controlOf(key);
  if (value === undefined || (control && control.value !== null && same(value, control.value))) delete next[key];
  else next[key] = value;
  await propose({ settings: next, changed: key }, key);
}

async function propose(body, errorKey) {
  body.parent = S.current;
  body.tier = S.tier;
  const answer = await api("POST", "/api/versions", body);
  if (!answer.ok || answer.data.refused) {
    clearErrors();
    showError(answer.data.key && controlOf(answer.data.key) ? answer.data.key : errorKey, answer.data.error);
    if (errorKey === "rules-text") showError("rules-text", answer.data.error);  // under the text as well
    showControls();  // back to the values of the version in force
    return false;
  }
  clearErrors();
  await setCurrent(answer.data.version.number, answer.data.version);
  refreshVersions();
  return true;
}

// ---------------------------------------------------------------------------------------------
// the published verdict

async function pollPublished() {
  const answer = await api("GET", "/api/published");
  const state = answer.ok ? answer.data : { status: "failed", error: answer.data.error };
  S.published = state;
  const node = document.querySelector('[data-testid="published-verdict"]');
  if (state.status === "done") {
    const verdict = state.verdict;
    node.textContent = verdict.sentences.join(" ");
    node.className = `verdict ${verdict.tone || "info"}`;
    node.dataset.status = "done";
    $("published-note").textContent = `${verdict.note} ${number(state.games)} games a tier (${number(state.search_games)} with search players), seed ${S.game.seed}.`;
    $("published-tiers").replaceChildren(tiersTable(verdict.tiers || []));
    $("published-chart").src = state.chart;
    $("published-figure").hidden = false;
    if (S.current === 1) renderCurrent();
    return;
  }
  if (state.status === "failed") {
    node.textContent = `The published rules could not be measured: ${state.error}`;
    node.className = "verdict bad";
    node.dataset.status = "failed";
    return;
  }
  node.dataset.status = "running";
  setTimeout(pollPublished, 1000);
}

function tiersTable(tiers) {
  const table = el("table", {}, el("thead", {}, el("tr", {},
    ["tier", "games", "seat", "edge", "interval", "judged"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const t of tiers) {
    body.append(el("tr", {}, el("td", { text: S.game.tier_labels[t.tier] || t.tier }), el("td", { class: "num", text: number(t.games) }),
      el("td", { class: "num", text: t.seat + 1 }), el("td", { class: "num", text: `${signed(t.edge_pp, 1)} pp` }),
      el("td", { class: "num", text: `${interval(t.ci_pp, 1)} (${Math.round(100 * t.confidence)}%)` }),
      el("td", { text: t.judgement === "within" ? "fair" : t.judgement === "beyond" ? "out of line" : "unsettled" })));
  }
  table.append(body);
  return table;
}

// ---------------------------------------------------------------------------------------------
// this version: its verdict as it narrows

async function setCurrent(number, version) {
  S.current = number;
  S.version = version || (await api("GET", `/api/versions/${number}`)).data;
  S.cards = null;
  showControls();
  renderCurrent();
  renderCards();
}

let currentTimer = null;
async function pollCurrent() {
  clearTimeout(currentTimer);
  if (S.current !== 1) {
    const answer = await api("GET", `/api/versions/${S.current}`);
    if (answer.ok && answer.data.number === S.current) {
      S.version = answer.data;
      renderCurrent();
    }
  }
  const result = S.version && S.version.results && S.version.results[S.tier];
  currentTimer = setTimeout(pollCurrent, result && result.status === "running" ? 300 : 1500);
}

function renderCurrent() {
  const node = $("verdict");
  const version = S.version;
  $("current-name").textContent = version ? `Version ${version.number}: ${version.name}` : "";
  const exportLink = $("export");
  const exportRules = $("export-rules");
  const busy = S.versions.busy;
  if (!version || version.number === 1) {
    const state = S.published;
    node.textContent = state.status === "done"
      ? `The published rules. ${state.verdict.sentences[0]} Change a rule to see what it does.`
      : "The published rules: change a rule to see what it does.";
    node.className = "verdict info";
    node.dataset.status = "published";
    node.dataset.games = "0";
    delete node.dataset.change;
    $("progress-line").textContent = "";
    $("progress").hidden = true;
    $("stop").disabled = true;
    $("continue").disabled = true;
    exportLink.hidden = true;
    exportRules.hidden = true;
    $("live-chart").replaceChildren();
    $("figures").replaceChildren();
    return;
  }
  exportLink.hidden = false;
  exportLink.href = `/api/versions/${version.number}/export?tier=${encodeURIComponent(S.tier)}`;
  exportRules.hidden = S.game.rules_text === null;
  exportRules.href = `/api/versions/${version.number}/export?as=rules`;
  const result = version.results[S.tier];
  if (!result) {
    node.textContent = `Not measured among ${S.tier} players yet.`;
    node.className = "verdict info";
    node.dataset.status = "none";
    $("continue").disabled = false;
    $("stop").disabled = true;
    return;
  }
  const live = result.live;
  node.dataset.status = result.status;
  node.dataset.games = String(result.games || 0);
  if (live && live.change_pp !== null) {
    node.dataset.change = String(live.change_pp);
    node.textContent = live.sentence;
    const tone = result.document && result.document.verdict ? result.document.verdict.tone : "info";
    node.className = `verdict ${tone}`;
  } else if (result.status === "failed") {
    node.textContent = `This version could not be measured: ${result.error}`;
    node.className = "verdict bad";
  } else {
    node.textContent = "Playing the first games…";
    node.className = "verdict info";
  }
  const running = result.status === "running";
  const words = { running: "measuring", settled: "settled", cap: "unsettled at the cap", stopped: "stopped",
    superseded: "stopped by a newer change", interrupted: "interrupted (the studio stopped)", failed: "failed" };
  let line = `${number(result.games || 0)} games of each set of rules (seed ${S.game.seed}), ${words[result.status] || result.status}.`;
  if (live && live.stop_ci_pp && live.stop_ci_pp[0] !== null) {
    line += ` Stop rule: ${interval(live.stop_ci_pp)} pp at ${(100 * result.stop_confidence).toFixed(1)}% against ±${S.game.thresholds.change_pp} pp.`;
    if (!live.settled && live.games_to_settle) line += ` About ${number(live.games_to_settle)} games would settle it.`;
  }
  $("progress-line").textContent = line;
  const progress = $("progress");
  progress.hidden = !running;
  progress.value = (result.games || 0) / result.cap;
  $("stop").disabled = !running;
  $("continue").disabled = running || result.status === "settled" || (result.games || 0) >= result.cap;
  drawLive(result);
  if (result.document) $("figures").replaceChildren(figuresTable(result.document.variants[0].figures));
}

function drawLive(result) {
  const box = $("live-chart");
  const history = (result.history || []).filter((h) => h.change_pp !== null);
  if (!history.length) { box.replaceChildren(); return; }
  const limit = S.game.thresholds.change_pp;
  const W = 640, H = 240, L = 56, R = 28, T = 14, B = 36;
  const lows = history.flatMap((h) => [h.stop_ci_pp[0], h.ci_pp[0]]).concat([-limit * 1.6]);
  const highs = history.flatMap((h) => [h.stop_ci_pp[1], h.ci_pp[1]]).concat([limit * 1.6]);
  const y0 = Math.min(...lows), y1 = Math.max(...highs);
  const looks = S.game.looks;
  const x = (games) => L + (W - L - R) * (Math.log2(games / looks[0]) / Math.max(1, Math.log2(looks[looks.length - 1] / looks[0])));
  const y = (v) => T + (H - T - B) * (1 - (v - y0) / (y1 - y0));
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text) node.textContent = text;
    svg.append(node);
    return node;
  };
  add("rect", { x: L, y: y(limit), width: W - L - R, height: y(-limit) - y(limit), fill: "#e4f1e9" });
  add("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#8a94a3", "stroke-dasharray": "4 3" });
  add("text", { x: W - R, y: y(-limit) - 4, "font-size": 11, "text-anchor": "end", fill: "#1f7a4d" }, `±${limit} pp: no change`);
  for (const v of [y0, 0, y1]) add("text", { x: L - 6, y: y(v) + 4, "font-size": 11, "text-anchor": "end", fill: "#5b6575" }, signed(v, 1));
  for (const games of looks) {
    add("text", { x: x(games), y: H - 18, "font-size": 10, "text-anchor": "middle", fill: "#5b6575" },
      games >= 1000 ? `${Math.round(games / 1000)}k` : String(games));
  }
  add("text", { x: (L + W - R) / 2, y: H - 3, "font-size": 11, "text-anchor": "middle", fill: "#5b6575" }, "games of each set of rules");
  for (const h of history) {
    const cx = x(h.games);
    add("line", { x1: cx, x2: cx, y1: y(h.stop_ci_pp[0]), y2: y(h.stop_ci_pp[1]), stroke: "#9db4d3", "stroke-width": 6 });
    add("line", { x1: cx, x2: cx, y1: y(h.ci_pp[0]), y2: y(h.ci_pp[1]), stroke: "#2f5f98", "stroke-width": 2 });
    add("circle", { cx, cy: y(h.change_pp), r: 4, fill: "#1d2430" });
  }
  box.replaceChildren(svg, el("p", { class: "quiet", text: "Change in the first seat's edge (pp) at each look: dark, the 95% interval; light, the stop rule's wider one." }));
}

function figuresTable(rows) {
  const table = el("table", {}, el("thead", {}, el("tr", {},
    ["figure", "before", "after", "change [95% CI]", "p", "q"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const r of rows) {
    const moved = r.q_value !== null && r.q_value < 0.05 && r.change !== 0;
    body.append(el("tr", { class: moved ? "moved" : null, "data-figure": r.key },
      el("td", { text: r.label + (r.kind === "rate" && r.per !== "game" ? ` per ${r.per}` : "") }),
      el("td", { class: "num", text: shown(r.kind, r.baseline, r.baseline_ci) }),
      el("td", { class: "num", text: shown(r.kind, r.variant, r.variant_ci) }),
      el("td", { class: "num", text: changeShown(r.kind, r.change, r.change_ci) }),
      el("td", { class: "num", text: pValue(r.p_value) }), el("td", { class: "num", text: pValue(r.q_value) })));
  }
  table.append(body);
  return table;
}

// ---------------------------------------------------------------------------------------------
// the versions, and two of them side by side

let versionsTimer = null;
async function refreshVersions() {
  clearTimeout(versionsTimer);
  const answer = await api("GET", "/api/versions");
  if (answer.ok) {
    S.versions = answer.data.versions;
    S.versions.busy = answer.data.busy;
    renderVersions();
  }
  versionsTimer = setTimeout(refreshVersions, 2000);
}

function renderVersions() {
  const body = document.querySelector("#versions-table tbody");
  body.replaceChildren();
  for (const v of S.versions) {
    const result = v.results[S.tier];
    const live = result && result.live;
    const edge = v.number === 1 ? "the published rules" : live && live.change_pp !== null
      ? `${signed(live.change_pp)} pp ${interval(live.ci_pp)}` : "—";
    const pick = el("input", { type: "checkbox", "aria-label": `pick version ${v.number}`, "data-version": v.number,
      onchange: (e) => {
        S.picked = S.picked.filter((n) => n !== v.number);
        if (e.target.checked) S.picked.push(v.number);
        while (S.picked.length > 2) S.picked.shift();
        renderVersions();
      } });
    pick.checked = S.picked.includes(v.number);
    body.append(el("tr", { class: v.number === S.current ? "current" : null, "data-version": v.number },
      el("td", {}, pick), el("td", { class: "num", text: v.number }), el("td", { text: v.name }),
      el("td", { class: "num", text: edge }),
      el("td", { text: v.number === 1 ? "" : result ? `${result.status}, ${number(result.games || 0)} games` : `not measured (${S.tier})` }),
      el("td", {}, el("button", { type: "button", text: v.number === S.current ? "shown" : "show", disabled: v.number === S.current,
        onclick: () => setCurrent(v.number) }))));
  }
  $("compare").disabled = S.picked.length !== 2;
}

async function compareVersions() {
  const [a, b] = [...S.picked].sort((x, y) => x - y);
  const box = $("comparison");
  box.hidden = false;
  $("comparison-heading").textContent = `Version ${b} against version ${a}…`;
  $("comparison-table").replaceChildren();
  const answer = await api("GET", `/api/compare?a=${a}&b=${b}&tier=${encodeURIComponent(S.tier)}`);
  if (!answer.ok) { $("comparison-verdict").textContent = answer.data.error; return; }
  const doc = answer.data;
  $("comparison-heading").textContent = `Version ${b} against version ${a}, paired on games 0–${number(doc.games - 1)} (seed ${doc.seed})`;
  const verdict = $("comparison-verdict");
  verdict.textContent = doc.verdict.sentences.join(" ").replace("Variant 1", `Version ${b}`);
  verdict.className = `verdict ${doc.verdict.tone}`;
  box.dataset.games = String(doc.games);
  $("comparison-table").replaceChildren(figuresTable(doc.variants[0].figures));
}

async function importFile(event) {
  const file = event.target.files[0];
  if (!file) return;
  const text = await file.text();
  event.target.value = "";
  const answer = await api("POST", `/api/import?tier=${encodeURIComponent(S.tier)}`, text, true);
  const ok = answer.ok && !answer.data.refused;
  $("import-error").textContent = ok ? "" : answer.data.error;
  if (ok) {
    await setCurrent(answer.data.version.number, answer.data.version);
    refreshVersions();
  }
}

// ---------------------------------------------------------------------------------------------
// the cards of this version

async function measureCards() {
  S.cardsFor = S.current;
  const answer = await api("GET", `/api/versions/${S.current}/cards?tier=${encodeURIComponent(S.tier)}`);
  if (!answer.ok) { $("cards-status").textContent = answer.data.error; return; }
  S.cards = answer.data;
  renderCards();
  if (answer.data.status === "running" && S.cardsFor === S.current) setTimeout(measureCards, 500);
}

function renderCards() {
  const status = $("cards-status");
  const state = S.cards;
  $("cards-figure").hidden = true;
  $("cards-table").replaceChildren();
  if (!state) { status.textContent = ""; return; }
  if (state.status === "running") { status.textContent = `Measuring the cards on ${number(state.games)} games…`; return; }
  if (state.status !== "done") { status.textContent = state.error || `Card strength ${state.status}.`; return; }
  status.textContent = `Version ${state.version}, ${number(state.games)} games among ${state.tier} players: the change in its holder's win share per copy in the opening hand, with 95% intervals. Click a heading to sort.`;
  const columns = [["card", "card"], ["delta", "change in win share"], ["ci", "95% interval"], ["q", "q (BH)"], ["judgement", "judged"]];
  const rows = [...state.rows];
  const { key, desc } = S.cardsSort;
  rows.sort((a, b) => {
    const va = key === "ci" ? a.ci_low : a[key], vb = key === "ci" ? b.ci_low : b[key];
    const order = typeof va === "string" ? String(va).localeCompare(String(vb), undefined, { numeric: true }) : (va ?? -1e9) - (vb ?? -1e9);
    return desc ? -order : order;
  });
  const head = el("tr", {}, columns.map(([k, label]) => el("th", { scope: "col", class: "sortable", "data-sort": k,
    text: label + (k === key ? (desc ? " ▼" : " ▲") : ""), onclick: () => {
      S.cardsSort = { key: k, desc: S.cardsSort.key === k ? !S.cardsSort.desc : k !== "card" };
      renderCards();
    } })), el("th", { scope: "col", text: "try" }));
  const body = el("tbody");
  for (const r of rows) {
    const actions = el("td", {});
    if (state.list_key) {
      actions.append(el("button", { type: "button", text: "without it", "data-card": r.card,
        onclick: () => cardChange(state.list_key, r.item, null) }));
      const swap = el("input", { type: "text", size: 4, "aria-label": `instead of ${r.card}` });
      actions.append(" ", swap, el("button", { type: "button", text: "instead", onclick: () => cardChange(state.list_key, r.item, swap.value.trim()) }));
    }
    body.append(el("tr", { class: r.flagged ? "moved" : null, "data-card": r.card },
      el("td", { text: r.card }), el("td", { class: "num", text: r.delta === null ? "—" : `${signed(100 * r.delta)} pp` }),
      el("td", { class: "num", text: r.ci_low === null ? "" : `[${signed(100 * r.ci_low)}, ${signed(100 * r.ci_high)}]` }),
      el("td", { class: "num", text: pValue(r.q) }), el("td", { text: r.judgement || "" }), actions));
  }
  $("cards-table").replaceChildren(el("table", {}, el("thead", {}, head), body));
  $("cards-chart").src = state.chart;
  $("cards-figure").hidden = false;
}

async function cardChange(key, card, replacement) {
  const control = controlOf(key);
  const list = [...(valueOf(control) || [])];
  const at = list.findIndex((v) => String(v) === String(card));
  if (at < 0) return;
  if (replacement === null) list.splice(at, 1);
  else {
    if (!replacement) return;
    list[at] = /^-?\d+$/.test(replacement) ? Number(replacement) : replacement;
  }
  await change(key, list);
  document.getElementById("current").scrollIntoView({ behavior: "smooth" });
}

// ---------------------------------------------------------------------------------------------
// the tuner

function buildTuneForm() {
  const form = $("tune-form");
  form.replaceChildren();
  const limit = S.game.thresholds.seat_pp;
  form.append(el("label", { class: "row" }, "First seat's edge within ± (pp) ",
    el("input", { type: "number", id: "tune-within", step: "0.1", min: "0.1", value: String(limit), size: 5 })));
  form.append(el("label", { class: "row" }, "Candidates at most ",
    el("input", { type: "number", id: "tune-candidates", step: "1", min: "1", max: "500", value: "12", size: 5 })));
  const keys = S.game.controls.filter((c) => (c.kind === "int" && c.value !== null) || c.kind === "bool");
  for (const c of keys) {
    const row = el("div", { class: "control", "data-tune-key": c.key });
    const tick = el("input", { type: "checkbox", id: `tune-${c.key}`, "data-tune": c.key });
    row.append(el("label", { for: `tune-${c.key}` }, tick, ` ${c.key}`));
    if (c.kind === "int") {
      row.append(" from ", el("input", { type: "number", step: "1", "data-low": c.key, value: String(c.value >= 1 ? Math.max(1, c.value - 2) : c.value - 2), size: 4 }),
        " to ", el("input", { type: "number", step: "1", "data-high": c.key, value: String(c.value + 2), size: 4 }));
    } else row.append(el("span", { class: "quiet", text: " on or off" }));
    form.append(row);
  }
}

async function startTune() {
  const changes = [];
  for (const tick of document.querySelectorAll("[data-tune]")) {
    if (!tick.checked) continue;
    const key = tick.dataset.tune;
    const control = controlOf(key);
    if (control.kind === "bool") changes.push({ key, values: [true, false] });
    else changes.push({ key, range: [Number(document.querySelector(`[data-low="${key}"]`).value),
      Number(document.querySelector(`[data-high="${key}"]`).value)] });
  }
  const body = { from: S.current, changes, within: Number($("tune-within").value), candidates: Number($("tune-candidates").value), tier: S.tier };
  const answer = await api("POST", "/api/tune", body);
  const ok = answer.ok && !answer.data.refused;
  $("tune-error").textContent = ok ? "" : answer.data.error;
  if (ok) pollTune();
}

async function pollTune() {
  const answer = await api("GET", "/api/tune");
  if (!answer.ok) return;
  S.tune = answer.data;
  renderTune();
  if (S.tune.status === "running") setTimeout(pollTune, 700);
}

function renderTune() {
  const state = S.tune;
  if (!state || state.status === "idle") return;
  const words = { running: "racing the candidates…", done: "done", failed: "failed", stopped: "stopped" };
  let line = `Tuner ${words[state.status] || state.status}: ${state.candidates.length} candidates measured.`;
  if (state.error) line += ` ${state.error}`;
  if (state.status === "done") {
    line += state.winner ? ` Smallest change that meets the target: ${state.winner.name}.` : " No candidate met the target.";
    if (state.verdict && state.verdict.sentences) line += " " + state.verdict.sentences.join(" ");
  }
  $("tune-status").textContent = line;
  const table = el("table", {}, el("thead", {}, el("tr", {}, ["#", "change", "stage", "games", "first seat's edge", "status"]
    .map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const c of state.candidates) {
    body.append(el("tr", { class: c.winner ? "moved" : null }, el("td", { class: "num", text: c.number }), el("td", { text: c.name }),
      el("td", { text: c.stage || "" }), el("td", { class: "num", text: c.games ? number(c.games) : "" }),
      el("td", { class: "num", text: c.edge_pp === null || c.edge_pp === undefined ? "—" : `${signed(c.edge_pp)} pp ${interval(c.ci_pp)}` }),
      el("td", { text: c.status || "" })));
  }
  table.append(body);
  const parts = [table];
  if (state.winner) {
    parts.push(el("p", { class: "buttons" }, el("button", { type: "button", "data-testid": "tune-adopt",
      text: `Make "${state.winner.name}" a version`, onclick: () => propose({ settings: { ...state.winner.settings } }, null) })));
  }
  $("tune-table").replaceChildren(...parts);
}

// ---------------------------------------------------------------------------------------------
// start

async function start() {
  const answer = await api("GET", "/api/game");
  if (!answer.ok) { $("subtitle").textContent = answer.data.error; return; }
  const game = S.game = answer.data;
  document.title = `balance studio: ${game.title}`;
  $("title").textContent = `balance studio: ${game.title}`;
  $("subtitle").textContent = `${game.players} players, seed ${game.seed}; each change plays up to ${number(game.cap)} games of each set of rules, on the same deals.`;
  $("folder").textContent = `Versions are kept in ${game.folder}.`;
  $("method").textContent = `A change is judged on the first seat's edge: under ±${game.thresholds.change_pp} pp counts as no change, and a seat within ±${game.thresholds.seat_pp} pp of the fair share as fair. Each version plays games 0, 1, 2 … of seed ${game.seed}, the same deals as the published rules, and looks at ${game.looks.map(number).join(", ")} games; it stops at the first look whose Bonferroni interval settles the change. The exported file reproduces every figure with balance whatif.`;
  const tier = $("tier");
  for (const t of game.tiers) tier.append(el("option", { value: t, text: game.tier_labels[t] || t }));
  tier.value = S.tier = game.tier;
  tier.addEventListener("change", async () => {
    S.tier = tier.value;
    if (S.current !== 1 && !(S.version.results || {})[S.tier]) await api("POST", `/api/versions/${S.current}/measure?tier=${encodeURIComponent(S.tier)}`);
    renderCurrent();
    renderVersions();
  });
  buildControls();
  if (game.rules_text !== null) {
    $("rules-file").hidden = false;
    $("rules-apply").addEventListener("click", async () => {
      const ok = await propose({ rules_text: $("rules-text").value }, "rules-text");
      if (ok) $("rules-text-error").textContent = "";
    });
  }
  if (!game.has_cards) {
    $("cards-intro").textContent = `${game.title} deals no hands of cards: there is no card table.`;
    $("cards-measure").hidden = true;
  }
  $("reset").addEventListener("click", () => setCurrent(1));
  $("stop").addEventListener("click", async () => { await api("POST", "/api/stop"); pollCurrent(); });
  $("continue").addEventListener("click", async () => {
    await api("POST", `/api/versions/${S.current}/measure?tier=${encodeURIComponent(S.tier)}`);
    pollCurrent();
  });
  $("compare").addEventListener("click", compareVersions);
  $("import").addEventListener("change", importFile);
  $("cards-measure").addEventListener("click", measureCards);
  $("tune-start").addEventListener("click", startTune);
  buildTuneForm();
  await refreshVersions();
  await setCurrent(1);
  pollPublished();
  pollCurrent();
  pollTune();
}

document.addEventListener("DOMContentLoaded", start);
