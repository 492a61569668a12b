// Endeavor: a drawn world map (regions with their cities, shipping tracks, decks and
// the connections between cities) and each player's board (the four attribute
// tracks, buildings with their workers, tokens and cards). Ship, occupy, attack and
// draw are made on the map: a track, a city or a deck; the building or token that
// pays for it is chosen from a short list when there are several.
import { h, s } from "../dom.js";
import { seatColour } from "../seats.js";

// Where each region sits on the map (the board's rough geography).
const LAYOUT = {
  "north-america": { x: 30, y: 40, w: 260, h: 150, colour: "#7aa35b" },
  caribbean: { x: 40, y: 250, w: 230, h: 120, colour: "#52a9a0" },
  "south-america": { x: 90, y: 430, w: 250, h: 150, colour: "#9c7a3c" },
  europe: { x: 390, y: 40, w: 300, h: 190, colour: "#b86b4b" },
  africa: { x: 420, y: 400, w: 230, h: 150, colour: "#c9a24a" },
  india: { x: 730, y: 310, w: 220, h: 150, colour: "#c0794a" },
  "far-east": { x: 760, y: 40, w: 230, h: 190, colour: "#a05a7a" },
};
const MAP_W = 1020;
const MAP_H = 640;
export const TOKEN_COLOURS = {
  industry: "#795548",
  culture: "#8e24aa",
  finance: "#e0a100",
  politics: "#1565c0",
  "ship-draw": "#00838f",
  "occupy-draw": "#2e7d32",
  attack: "#c62828",
  payment: "#455a64",
};
const TOKEN_SHORT = { industry: "I", culture: "C", finance: "F", politics: "P", "ship-draw": "S", "occupy-draw": "O", attack: "A", payment: "$" };
const PHASES = {
  ENDEAVOR_BUILD: "build",
  ENDEAVOR_SALARY: "salary",
  ENDEAVOR_ACTION: "actions",
  ENDEAVOR_SECOND_HALF: "second half of an action",
  ENDEAVOR_DISCARD: "discard down to the card limit",
  ENDEAVOR_OVER: "game over",
};
const TRACKS = [
  ["industry", "Industry", "buildingLevel", "building level"],
  ["culture", "Culture", "growth", "growth"],
  ["finance", "Finance", "salary", "salary"],
  ["politics", "Politics", "cardSlots", "card slots"],
];

function title(slug) {
  return slug.replace(/-/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
}

export function verbOf(notation) {
  return notation.split(" ")[0];
}

/** The map target an action is made on: "ship:<region>", "city:<id>", "deck:<id>". */
function targetOf(notation) {
  const [verb, what] = notation.split(" ");
  if (verb === "ship") return `ship:${what}`;
  if (verb === "occupy" || verb === "attack") return `city:${what}`;
  if (verb === "draw") return `deck:${what}`;
  return null;
}

export function hint(ctx) {
  if (ctx.legal.some((a) => targetOf(a.notation))) return "Click a glowing shipping track, city or deck on the map, or use the buttons.";
  return "";
}

export function draw({ board, panels }, view, ctx) {
  const byTarget = new Map();
  for (const action of ctx.legal) {
    const key = targetOf(action.notation);
    if (!key) continue;
    if (!byTarget.has(key)) byTarget.set(key, []);
    byTarget.get(key).push(action);
  }
  const activate = (key, label) => (element) => {
    const actions = byTarget.get(key);
    if (!actions) return element;
    element.classList.add("has-target");
    return ctx.clickable(element, label, () => {
      if (actions.length === 1) ctx.act(actions[0]);
      else ctx.select({ target: key });
    });
  };
  board.append(header(view, ctx), h("div", { class: "map-wrap" }, drawMap(view, ctx, byTarget, activate), choice(ctx, byTarget)));
  panels.append(h("div", { class: "endeavor-players" }, (view.players || []).map((p) => playerBoard(p, view, ctx))), supplyPanel(view));
}

function header(view, ctx) {
  const over = view.phase === "ENDEAVOR_OVER";
  return h(
    "div",
    { class: "cite-top" },
    h("span", { class: "pill" }, `Round ${view.round ?? 0} / 7`),
    h("span", { class: "pill" }, `Phase: ${PHASES[view.phase] || view.phase}`),
    h("span", { class: "pill" }, `First player: seat ${view.crownSeat ?? 0}`),
    over ? null : h("span", { class: "pill" }, `To move: ${ctx.seatLabel(view.toMove ?? 0)}`),
    view.phase === "ENDEAVOR_SALARY" ? h("span", { class: "pill" }, `${view.salaryLeft ?? 0} salary payments left`) : null,
    view.pending ? h("span", { class: "pill" }, `Pending: ${view.pending} ${view.pendingTarget || ""}`) : null,
    view.abolished ? h("span", { class: "pill" }, "Slavery abolished") : null,
    (view.winners || []).length ? h("span", { class: "pill winners" }, `Winners: ${view.winners.map((w) => ctx.seatLabel(w)).join(", ")}`) : null,
  );
}

function cityPositions(view) {
  const byRegion = {};
  for (const city of view.cities || []) (byRegion[city.region] ||= []).push(city);
  const positions = {};
  const extra = Object.keys(byRegion).filter((r) => !LAYOUT[r]);
  extra.forEach((region, i) => {
    LAYOUT[region] = { x: 330 + i * 120, y: 560, w: 110, h: 70, colour: "#888" };
  });
  for (const [region, cities] of Object.entries(byRegion)) {
    const box = LAYOUT[region];
    const cols = cities.length > 6 ? 5 : 3;
    const rows = Math.ceil(cities.length / cols);
    cities.forEach((city, i) => {
      const col = i % cols;
      const row = Math.floor(i / cols);
      const inRow = Math.min(cols, cities.length - row * cols);
      const width = box.w - 52; // the right-hand strip holds the region's deck
      const gap = width / cols;
      const x = box.x + 8 + width / 2 + (col - (inRow - 1) / 2) * gap;
      const y = box.y + 32 + (row + 0.5) * ((box.h - 52) / rows);
      positions[city.id] = [x, y];
    });
  }
  return positions;
}

function drawMap(view, ctx, byTarget, activate) {
  const svg = s("svg", { class: "endeavor-map", viewBox: `0 0 ${MAP_W} ${MAP_H}`, role: "img", "aria-label": "Endeavor map" });
  svg.append(
    s("defs", {}, s("pattern", { id: "waves", width: 40, height: 20, patternUnits: "userSpaceOnUse" }, s("path", { d: "M0,10 q10,-6 20,0 t20,0", stroke: "#5f93b8", "stroke-width": 1, fill: "none", opacity: 0.5 }))),
    s("rect", { x: 0, y: 0, width: MAP_W, height: MAP_H, fill: "#2f6f9c", rx: 16 }),
    s("rect", { x: 0, y: 0, width: MAP_W, height: MAP_H, fill: "url(#waves)", rx: 16 }),
  );
  const positions = cityPositions(view);
  const regions = Object.fromEntries((view.regions || []).map((r) => [r.id, r]));
  const decks = Object.fromEntries((view.decks || []).map((d) => [d.id, d.cards || []]));

  // Connections between cities, under everything else.
  for (const link of view.connections || []) {
    const a = positions[link.a];
    const b = positions[link.b];
    if (!a || !b) continue;
    svg.append(s("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#f3e3c0", "stroke-width": 2.5, "stroke-dasharray": "6 5", opacity: 0.85 }));
    if (link.token) {
      const mx = (a[0] + b[0]) / 2;
      const my = (a[1] + b[1]) / 2;
      svg.append(tokenDisc(mx, my, link.token, 8, `connection ${link.a}–${link.b}: ${link.token} token`));
    }
  }

  for (const [id, box] of Object.entries(LAYOUT)) {
    const region = regions[id];
    if (!region && !(view.cities || []).some((c) => c.region === id)) continue;
    const g = s("g", { class: "region", "data-region": id });
    g.append(
      s("rect", { x: box.x, y: box.y, width: box.w, height: box.h, rx: 22, fill: "#efe2c2", stroke: box.colour, "stroke-width": 4 }),
      s("rect", { x: box.x, y: box.y, width: box.w, height: 26, rx: 12, fill: box.colour, opacity: 0.9 }),
      s("text", { x: box.x + 12, y: box.y + 18, class: "region-name", fill: "#fff", style: "fill:#fff" }, title(id)),
    );
    if (region) {
      const open = region.open;
      g.append(s("text", { x: box.x + box.w - 10, y: box.y + 18, "text-anchor": "end", fill: "#fff", style: "font-weight:700" }, open ? "OPEN" : "closed"));
      const presence = (region.presence || []).map((n, seat) => [seat, n]).filter(([, n]) => n);
      presence.forEach(([seat, n], i) => {
        const px = box.x + 14 + i * 34;
        const py = box.y + box.h - 14;
        g.append(s("circle", { cx: px, cy: py, r: 8, fill: seatColour(seat), stroke: "#222" }), s("text", { x: px + 11, y: py + 4, style: "font-weight:700" }, String(n)), s("title", {}, `seat ${seat}: presence ${n}`));
      });
      if (region.track && region.track.length) g.append(track(region, box, activate));
    }
    const deckId = id === "europe" ? "mediterranean" : id;
    if (decks[deckId]) g.append(deck(deckId, decks[deckId], box.x + box.w - 46, box.y + 38, activate));
    svg.append(g);
  }
  if (decks.slavery) svg.append(deck("slavery", decks.slavery, 300, 220, activate));

  for (const city of view.cities || []) {
    const [x, y] = positions[city.id];
    const owner = city.owner ?? -1;
    const g = s("g", { class: "city-node", "data-city": city.id });
    g.append(
      s("circle", { cx: x, cy: y, r: 17, fill: owner >= 0 ? seatColour(owner) : "#fffaf0", stroke: "#3b2b12", "stroke-width": 2 }),
      s("text", { x, y: y + 4, "text-anchor": "middle", style: `font-weight:700;fill:${owner >= 0 ? "#fff" : "#3b2b12"}` }, (city.glory ?? 1) > 1 ? `★${city.glory}` : city.id.split("-").pop()),
    );
    if (city.token) g.append(tokenDisc(x + 14, y - 13, city.token, 7, `${city.token} token on ${city.id}`));
    g.append(s("title", {}, `${city.id}: ${owner >= 0 ? `seat ${owner}` : "free"}${city.token ? `, ${city.token} token` : ""}, glory ${city.glory ?? 1}`));
    const key = `city:${city.id}`;
    if (byTarget.has(key)) {
      const ring = s("circle", { cx: x, cy: y, r: 22, class: "city-target target", "data-target": key });
      g.append(activate(key, `${byTarget.get(key)[0].notation.split(" ")[0]} ${city.id}`)(ring));
    }
    svg.append(g);
  }
  return svg;
}

function track(region, box, activate) {
  const spaces = region.track || [];
  const tokens = region.trackTokens || [];
  const size = 20;
  const x0 = box.x + 8;
  const y0 = box.y + box.h + 6;
  const g = s("g", { class: "track", "data-track": region.id });
  const next = spaces.findIndex((seat) => (seat ?? -1) < 0);
  spaces.forEach((seat, i) => {
    const x = x0 + i * (size + 3);
    const taken = (seat ?? -1) >= 0;
    const rect = s("rect", { x, y: y0, width: size, height: size, rx: 4, fill: taken ? seatColour(seat) : "#fdf6e3", stroke: "#3b2b12", "stroke-width": 1.5 });
    g.append(rect);
    if (!taken && tokens[i]) g.append(s("text", { x: x + size / 2, y: y0 + 14, "text-anchor": "middle", style: `font-weight:700;fill:${TOKEN_COLOURS[tokens[i]] || "#333"}` }, TOKEN_SHORT[tokens[i]] || "?"));
  });
  g.append(s("title", {}, `${region.id} shipping track: ${spaces.filter((x) => (x ?? -1) >= 0).length}/${spaces.length} filled`));
  const key = `ship:${region.id}`;
  if (next >= 0) {
    const target = s("rect", { x: x0 + next * (size + 3) - 2, y: y0 - 2, width: size + 4, height: size + 4, rx: 5, class: "track-target target", "data-target": key });
    activate(key, `ship to ${region.id}`)(target);
    if (target.classList.contains("has-target")) g.append(target);
  }
  return g;
}

function deck(id, cards, x, y, activate) {
  const g = s("g", { class: "deck", "data-deck": id });
  for (let i = 2; i >= 0; i--) g.append(s("rect", { x: x + i * 2, y: y - i * 2, width: 34, height: 40, rx: 4, fill: id === "slavery" ? "#555" : "#1d5a8a", stroke: "#fff", "stroke-width": 1.2 }));
  g.append(
    s("text", { x: x + 17, y: y + 25, "text-anchor": "middle", style: "fill:#fff;font-weight:700;font-size:13px" }, String(cards.length)),
    s("title", {}, `${id} deck: ${cards.length} cards${cards.length ? `, top ${cards[0]}` : ""}`),
  );
  const key = `deck:${id}`;
  const target = s("rect", { x: x - 3, y: y - 7, width: 42, height: 50, rx: 6, class: "track-target target", "data-target": key });
  activate(key, `draw from the ${id} deck`)(target);
  if (target.classList.contains("has-target")) g.append(target);
  return g;
}

function tokenDisc(x, y, token, r, label) {
  return s("g", {}, s("circle", { cx: x, cy: y, r, fill: TOKEN_COLOURS[token] || "#666", stroke: "#fff", "stroke-width": 1.2 }), s("text", { x, y: y + 3.5, "text-anchor": "middle", style: "fill:#fff;font-size:9px;font-weight:700" }, TOKEN_SHORT[token] || "?"), s("title", {}, label));
}

function choice(ctx, byTarget) {
  const key = ctx.selection.target;
  const actions = key && byTarget.get(key);
  if (!actions) return null;
  return h(
    "div",
    { class: "choice card", role: "dialog", "aria-label": "pay with" },
    h("strong", {}, `${actions[0].notation.split(" with ")[0]}: with`),
    actions.map((a) => h("button", { type: "button", class: "action", "data-notation": a.notation, onclick: () => ctx.act(a) }, a.notation.split(" with ")[1] || a.notation)),
    h("button", { type: "button", onclick: () => ctx.select({ target: undefined }) }, "Cancel"),
  );
}

function chips(counts, cls) {
  return (counts || []).filter((t) => (t.count ?? 0) > 0).map((t) => h("span", { class: `token ${cls}`, style: `background:${TOKEN_COLOURS[t.name] || "#666"}`, title: t.name }, `${t.count} ${t.name}`));
}

function playerBoard(p, view, ctx) {
  const seat = p.seat ?? 0;
  const score = p.score || {};
  const buildable = new Map(ctx.legal.filter((a) => /^(build|salary) /.test(a.notation)).map((a) => [a.notation.split(" ")[1], a]));
  const mine = seat === ctx.viewer;
  return h(
    "div",
    { class: `player${seat === (view.toMove ?? 0) && view.phase !== "ENDEAVOR_OVER" ? " acting" : ""}${mine ? " you" : ""}`, "data-seat": seat, style: `--seat:${seatColour(seat)}` },
    h(
      "div",
      { class: "player-head" },
      h("span", { class: "seat-dot", style: `background:${seatColour(seat)}` }),
      h("strong", {}, ctx.seatLabel(seat)),
      mine ? h("span", { class: "badge you" }, "you") : null,
      p.passed ? h("span", { class: "badge" }, "passed") : null,
      seat === (view.crownSeat ?? 0) ? h("span", { class: "badge award" }, "first") : null,
      h("span", { class: "vp", title: `tracks ${score.tracks ?? 0}, cities ${score.cities ?? 0}, connections ${score.connections ?? 0}, cards ${score.cards ?? 0}, buildings ${score.buildings ?? 0}, governor slot ${score.freeGovernorSlot ?? 0}, harbor ${score.harbor ?? 0}, slavery ${score.slavery ?? 0}` }, `${score.total ?? 0} glory`),
    ),
    h(
      "div",
      { class: "tracks" },
      TRACKS.map(([key, label, level, levelName]) => [
        h("span", {}, label),
        h("div", { class: "track-bar", style: `--t:${TOKEN_COLOURS[key]}` }, Array.from({ length: 16 }, (_, i) => h("span", { class: i < (p[key] ?? 0) ? "on" : "" }))),
        h("span", { class: "small", title: levelName }, `${p[key] ?? 0} → ${p[level] ?? 0}`),
      ]),
    ),
    h("div", { class: "small stats" }, `population: ${p.supply ?? 0} in supply, ${p.harbor ?? 0} in the harbor, ${p.onBuildings ?? 0} at work`),
    h(
      "div",
      { class: "buildings" },
      (p.buildings || []).map((b) => {
        const action = mine ? buildable.get(b.name) : null;
        const el = h("span", { class: `building${action ? " usable" : ""}`, "data-building": b.name }, title(b.name), (b.count ?? 0) > 1 ? ` ×${b.count}` : "", Array.from({ length: b.occupied ?? 0 }, () => h("span", { class: "worker", title: "a worker" })));
        return el;
      }),
    ),
    h("div", {}, chips(p.brownTokens, "brown"), chips(p.blueTokens, "blue")),
    h(
      "div",
      {},
      (p.cards || []).map((c) => h("span", { class: `ecard${c.endsWith("governor") ? " governor" : ""}${c.startsWith("slavery") ? " slavery" : ""}` }, c)),
      (p.faceDownSlavery || []).map((c) => h("span", { class: "ecard slavery", title: "face down: costs glory" }, `${c} (face down)`)),
      (p.cards || []).length + (p.faceDownSlavery || []).length === 0 ? h("span", { class: "muted small" }, "no cards") : null,
    ),
  );
}

function supplyPanel(view) {
  const supply = (view.buildingSupply || []).filter((b) => (b.count ?? 0) > 0);
  return h(
    "div",
    { class: "card", style: "margin-top:1rem" },
    h("h2", {}, "Buildings left to build"),
    h("div", { class: "buildings" }, supply.map((b) => h("span", { class: "building" }, `${title(b.name)} ${b.count}`))),
    h("div", { class: "small muted" }, "Tokens spent: ", chips(view.spentTokens, "blue")),
  );
}
