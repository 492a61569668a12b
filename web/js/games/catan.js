// Catan: the SVG map (hexes, number tokens, robber, harbors, roads, settlements and
// cities in seat colours) drawn from the CatanView's own geometry (each hex's row,
// column, corners and sides), with the legal actions on the board itself: a glowing
// intersection to settle, a path for a road, a hex for the robber.
import { h, s, mount, pluralize } from "../dom.js";
import { seatColour, SEAT_COLOUR_NAMES } from "../seats.js";

const R = 56; // hex radius (centre to corner)
const W = Math.sqrt(3) * R;
const RESOURCES = ["brick", "lumber", "wool", "grain", "ore"];
const RESOURCE_COLOURS = { brick: "#b5522b", lumber: "#2f6b3a", wool: "#8cc152", grain: "#e5b92e", ore: "#7d8591" };
const TERRAIN = {
  CATAN_HILLS: { fill: "#c8643b", name: "hills", gives: "brick" },
  CATAN_FOREST: { fill: "#3d7f45", name: "forest", gives: "lumber" },
  CATAN_PASTURE: { fill: "#9fd162", name: "pasture", gives: "wool" },
  CATAN_FIELDS: { fill: "#efc94c", name: "fields", gives: "grain" },
  CATAN_MOUNTAINS: { fill: "#8f96a0", name: "mountains", gives: "ore" },
  CATAN_DESERT: { fill: "#e6d5a8", name: "desert", gives: "nothing" },
};
const DEV_CARDS = [
  ["knight", "knight", "move the robber and steal a card"],
  ["roadBuilding", "road building", "build 2 free roads"],
  ["yearOfPlenty", "year of plenty", "take any 2 resources from the bank"],
  ["monopoly", "monopoly", "take every card of one resource from the others"],
  ["victoryPoint", "victory point", "1 victory point, kept secret"],
];
const PHASES = {
  CATAN_SETUP_SETTLEMENT: "set-up: place a settlement",
  CATAN_SETUP_ROAD: "set-up: place a road next to it",
  CATAN_PRE_ROLL: "before the roll",
  CATAN_ROLL: "roll the dice",
  CATAN_DISCARD: "a 7: discard half",
  CATAN_ROBBER: "move the robber",
  CATAN_STEAL: "steal a card",
  CATAN_MAIN: "trade and build",
  CATAN_FREE_ROADS: "road building: free roads",
  CATAN_DRAW: "drawing",
  CATAN_TRADE_ANSWER: "answer the offer",
  CATAN_TRADE_CONFIRM: "confirm the trade",
  CATAN_OVER: "game over",
};
const CORNERS = [
  [0, -R],
  [W / 2, -R / 2],
  [W / 2, R / 2],
  [0, R],
  [-W / 2, R / 2],
  [-W / 2, -R / 2],
];
const PIPS = { 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1 };

/** Centre of each hex, position of each intersection, ends of each path. */
export function geometry(view) {
  const rowLength = {};
  for (const hex of view.hexes || []) rowLength[hex.row ?? 0] = (rowLength[hex.row ?? 0] || 0) + 1;
  const widest = Math.max(0, ...Object.values(rowLength));
  const hexXY = {};
  const nodeXY = {};
  const pathNodes = {};
  for (const hex of view.hexes || []) {
    const row = hex.row ?? 0;
    const cx = ((2 * (hex.col ?? 0) + (widest - rowLength[row])) * W) / 2;
    const cy = row * 1.5 * R;
    hexXY[hex.id ?? 0] = [cx, cy];
    const corners = hex.intersections || [];
    corners.forEach((node, k) => {
      nodeXY[node] = [cx + CORNERS[k][0], cy + CORNERS[k][1]];
    });
    (hex.paths || []).forEach((path, k) => {
      pathNodes[path] = [corners[k], corners[(k + 1) % corners.length]];
    });
  }
  return { hexXY, nodeXY, pathNodes };
}

function count(obj, key) {
  return (obj && obj[key]) || 0;
}

const COSTS = [
  ["Road", { brick: 1, lumber: 1 }],
  ["Settlement", { brick: 1, lumber: 1, wool: 1, grain: 1 }],
  ["City", { grain: 2, ore: 3 }],
  ["Development card", { wool: 1, grain: 1, ore: 1 }],
];
// Verbs the trade builder and the discard picker stand in for (no button per offer).
const BUILDER_VERBS = new Set(["give", "add", "bank", "discard"]);

/** Whether the page should leave this verb's buttons out (a widget covers it). */
export function coveredVerb(verb, ctx) {
  const word = verb.split(" ")[0];
  if (!BUILDER_VERBS.has(word)) return false;
  return ctx.viewer !== null && ctx.viewer !== undefined;
}

/** "Red", "Blue"…: a seat by its colour, "You" for the viewer. */
export function seatName(seat, viewer) {
  if (seat === viewer) return "You";
  const name = SEAT_COLOUR_NAMES[seat % SEAT_COLOUR_NAMES.length];
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function hexLabel(hex) {
  const terrain = TERRAIN[hex.terrain] || TERRAIN.CATAN_DESERT;
  return terrain.gives === "nothing" ? "the desert" : `${terrain.gives} ${hex.number ?? ""}`.trim();
}

function hexesAt(view, key, id) {
  return (view.hexes || []).filter((hex) => (hex[key] || []).includes(id));
}

function listed(words) {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/** Where an intersection is, in the map's words: "ore 8, grain 6 and the coast". */
export function nodeWords(view, node) {
  const around = hexesAt(view, "intersections", node).map(hexLabel);
  if (around.length < 3) around.push("the coast");
  return listed(around);
}

/** Where a path is: "between ore 8 and grain 6", or "on the coast of ore 8". */
export function pathWords(view, path) {
  const around = hexesAt(view, "paths", path).map(hexLabel);
  return around.length >= 2 ? `between ${listed(around)}` : `on the coast of ${around[0] || "the sea"}`;
}

function hexWords(view, id) {
  const hex = (view.hexes || []).find((x) => (x.id ?? 0) === id);
  return hex ? hexLabel(hex) : `hex ${id}`;
}

/** What each seat gets from a roll of ``total`` on this board: {seat: {resource: n}}. */
export function production(view, total) {
  const got = {};
  if (!total || total === 7) return got;
  const owner = new Map((view.buildings || []).map((b) => [b.intersection ?? 0, b]));
  for (const hex of view.hexes || []) {
    if ((hex.number ?? 0) !== total || (hex.id ?? 0) === (view.robberHex ?? 0)) continue;
    const resource = (TERRAIN[hex.terrain] || {}).gives;
    for (const node of hex.intersections || []) {
      const building = owner.get(node);
      if (!building) continue;
      const seat = building.seat ?? 0;
      got[seat] = got[seat] || {};
      got[seat][resource] = (got[seat][resource] || 0) + (building.city ? 2 : 1);
    }
  }
  return got;
}

function productionWords(view, total, viewer) {
  if (total === 7) return "a 7: no one produces; the robber moves";
  const got = production(view, total);
  const parts = Object.entries(got).map(([seat, res]) => `${seatName(Number(seat), viewer)} +${Object.entries(res).map(([r, n]) => `${n} ${r}`).join(" +")}`);
  return parts.length ? parts.join(", ") : "no one produces";
}

function sideWords(words) {
  // "1 wool 2 ore" -> "1 wool and 2 ore"
  const pairs = [];
  for (let i = 0; i + 1 < words.length; i += 2) pairs.push(`${words[i]} ${words[i + 1]}`);
  return listed(pairs);
}

/** A log line in words: "Blue built a road between ore 8 and grain 6". */
export function describe(event, view, viewer) {
  const notation = event.notation || "";
  const actor = event.actor || {};
  const words = notation.split(" ");
  if (actor.kind === "CHANCE") {
    if (words[0] === "dice") {
      const total = Number(words[1]);
      return `Rolled ${total}: ${productionWords(view, total, viewer)}`;
    }
    if (event.hidden) return "A card was drawn or stolen (hidden)";
    if (words[0] === "draw") return `A ${words.slice(1).join(" ")} card was drawn`;
    if (words[0] === "steal") return `Stolen: ${words[1]}${words[3] !== undefined ? ` from ${seatName(Number(words[3]), viewer)}` : ""}`;
    return notation;
  }
  const who = seatName(actor.seat ?? 0, viewer);
  if (event.hidden) return `${who}: (hidden)`;
  switch (words[0]) {
    case "road":
      return `${who} built a road ${pathWords(view, Number(words[1]))}`;
    case "settle":
    case "settlement":
      return `${who} built a settlement at ${nodeWords(view, Number(words[1]))}`;
    case "city":
      return `${who} built a city at ${nodeWords(view, Number(words[1]))}`;
    case "robber": {
      const robbed = words[2] === "rob" ? ` and robs ${seatName(Number(words[3]), viewer)}` : "";
      return `${who} moved the robber to ${hexWords(view, Number(words[1]))}${robbed}`;
    }
    case "roll":
      return `${who} rolled the dice`;
    case "end":
      return `${who} ended the turn`;
    case "buy":
      return `${who} bought a development card`;
    case "play":
      return `${who} played ${words.slice(1).join(" ").replace(/-/g, " ")}`;
    case "discard":
      return `${who} discarded 1 ${words[1]}`;
    case "bank":
      return `${who} traded ${words[1]} ${words[2]} with the bank for 1 ${words[4]}`;
    case "give": {
      const cut = words.indexOf("get");
      return `${who} offered ${sideWords(words.slice(1, cut))} for ${sideWords(words.slice(cut + 1))}`;
    }
    case "accept":
      return `${who} accepted the offer`;
    case "decline":
      return `${who} declined the offer`;
    case "cancel":
      return `${who} withdrew the offer`;
    case "trade":
      return `${who} traded with ${seatName(Number(words[2]), viewer)}`;
    case "stop":
      return `${who} stopped building free roads`;
    default:
      return `${who}: ${notation}`;
  }
}

/** A highlight of the spot a move names (its road, intersection or hex), or null. */
export function spotShape(view, notation, className) {
  const geo = geometry(view);
  const words = (notation || "").split(" ");
  const id = Number(words[1]);
  if (words[0] === "road" && geo.pathNodes[id]) {
    const [a, b] = geo.pathNodes[id].map((n) => geo.nodeXY[n]);
    return s("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: `spot ${className}`, "data-spot": notation });
  }
  if ((words[0] === "settle" || words[0] === "city" || words[0] === "settlement") && geo.nodeXY[id]) {
    const [x, y] = geo.nodeXY[id];
    return s("circle", { cx: x, cy: y, r: 20, class: `spot ${className}`, "data-spot": notation });
  }
  if (words[0] === "robber" && geo.hexXY[id]) {
    const [cx, cy] = geo.hexXY[id];
    return s("polygon", { points: CORNERS.map(([dx, dy]) => `${cx + dx * 0.9},${cy + dy * 0.9}`).join(" "), class: `spot ${className}`, "data-spot": notation });
  }
  if (words[0] === "dice") {
    const hexes = (view.hexes || []).filter((x) => (x.number ?? 0) === id);
    if (!hexes.length) return null;
    return s("g", { class: `spot ${className}`, "data-spot": notation }, hexes.map((hex) => {
      const [cx, cy] = geo.hexXY[hex.id ?? 0];
      return s("circle", { cx, cy: cy + 6, r: 22 });
    }));
  }
  return null;
}

export function verbOf(notation) {
  const words = notation.split(" ");
  if (words[0] === "play" || words[0] === "buy" || words[0] === "add") return `${words[0]} ${words[1] || ""}`.trim();
  return words[0];
}

export function hint(ctx) {
  const view = ctx.state.catan || {};
  const legal = ctx.legal.map((a) => a.notation);
  if (legal.some((n) => n.startsWith("settle "))) return "Click a glowing intersection to build a settlement.";
  if (legal.some((n) => n.startsWith("road "))) return "Click a glowing path to build a road.";
  if (legal.some((n) => n.startsWith("robber "))) return "Click a glowing hex to move the robber there.";
  return PHASES[view.phase] ? `Phase: ${PHASES[view.phase]}.` : "";
}

export function draw({ board, panels }, view, ctx) {
  board.append(drawMap(view, ctx));
  panels.append(drawPanels(view, ctx));
}

function drawMap(view, ctx) {
  const geo = geometry(view);
  const points = Object.values(geo.nodeXY);
  const pad = R * 1.35;
  const minX = Math.min(...points.map((p) => p[0])) - pad;
  const maxX = Math.max(...points.map((p) => p[0])) + pad;
  const minY = Math.min(...points.map((p) => p[1])) - pad;
  const maxY = Math.max(...points.map((p) => p[1])) + pad;
  const centre = [(minX + maxX) / 2, (minY + maxY) / 2];
  const legal = new Map(ctx.legal.map((a) => [a.notation, a]));
  const svg = s("svg", {
    class: "catan-map",
    viewBox: `${minX} ${minY} ${maxX - minX} ${maxY - minY}`,
    role: "img",
    "aria-label": "Catan map",
  });
  const defs = s(
    "defs",
    {},
    s("radialGradient", { id: "sea", cx: "50%", cy: "50%", r: "60%" }, s("stop", { offset: "0%", "stop-color": "#3c8dc5" }), s("stop", { offset: "100%", "stop-color": "#1d5a8a" })),
    s("filter", { id: "shadow", x: "-20%", y: "-20%", width: "140%", height: "140%" }, s("feDropShadow", { dx: "0", dy: "2", stdDeviation: "2", "flood-opacity": "0.45" })),
  );
  svg.append(defs, s("rect", { x: minX, y: minY, width: maxX - minX, height: maxY - minY, fill: "url(#sea)", rx: 18 }));

  // Harbors first: their piers run under the coast.
  for (const harbor of view.harbors || []) {
    const ends = (harbor.intersections || []).map((n) => geo.nodeXY[n]).filter(Boolean);
    if (ends.length !== 2) continue;
    const mid = [(ends[0][0] + ends[1][0]) / 2, (ends[0][1] + ends[1][1]) / 2];
    const dx = mid[0] - centre[0];
    const dy = mid[1] - centre[1];
    const len = Math.hypot(dx, dy) || 1;
    const at = [mid[0] + (dx / len) * R * 0.62, mid[1] + (dy / len) * R * 0.62];
    const resource = harbor.resource && harbor.resource !== "CATAN_RESOURCE_UNSPECIFIED" ? harbor.resource.replace("CATAN_", "").toLowerCase() : null;
    const label = resource ? `2:1 ${resource}` : "3:1";
    const group = s("g", { class: "harbor", "data-harbor": harbor.id ?? 0 });
    for (const end of ends) group.append(s("line", { x1: at[0], y1: at[1], x2: end[0], y2: end[1], stroke: "#d8c49a", "stroke-width": 5, "stroke-linecap": "round" }));
    group.append(
      s("circle", { cx: at[0], cy: at[1], r: 17, fill: resource ? RESOURCE_COLOURS[resource] : "#fdf6e3", stroke: "#5b3a12", "stroke-width": 2 }),
      s("text", { x: at[0], y: at[1] + 4, class: "harbor-rate", fill: resource ? "#fff" : "#333" }, resource ? "2:1" : "3:1"),
      s("title", {}, `harbor ${label}`),
    );
    svg.append(group);
  }

  for (const hex of view.hexes || []) {
    const id = hex.id ?? 0;
    const [cx, cy] = geo.hexXY[id];
    const terrain = TERRAIN[hex.terrain] || TERRAIN.CATAN_DESERT;
    const corners = CORNERS.map(([dx, dy]) => `${cx + dx * 0.97},${cy + dy * 0.97}`).join(" ");
    const group = s("g", { class: "hex", "data-hex": id });
    group.append(s("polygon", { points: corners, fill: terrain.fill, stroke: "#f5e6c4", "stroke-width": 3 }));
    group.append(terrainMark(hex.terrain, cx, cy));
    const number = hex.number ?? 0;
    if (number) {
      const hot = number === 6 || number === 8;
      group.append(
        s("circle", { cx, cy: cy + 6, r: 17, fill: "#fbf3dc", stroke: "#6b5a3a", "stroke-width": 1.5, filter: "url(#shadow)" }),
        s("text", { x: cx, y: cy + 12, class: `token${hot ? " hot" : ""}` }, String(number)),
      );
      const pips = PIPS[number] || 0;
      for (let i = 0; i < pips; i++) group.append(s("circle", { cx: cx + (i - (pips - 1) / 2) * 4.2, cy: cy + 17, r: 1.4, fill: hot ? "#c0392b" : "#333" }));
    }
    group.append(s("title", {}, `hex ${id}: ${terrain.name}${number ? ` ${number}` : ""} (${terrain.gives})`));
    const robberActions = ctx.legal.filter((a) => a.notation === `robber ${id}` || a.notation.startsWith(`robber ${id} `));
    if (robberActions.length) {
      const target = s("polygon", { points: corners, class: "target hex-target", "data-target": `robber ${id}` });
      ctx.clickable(target, `move the robber to hex ${id}`, () => {
        if (robberActions.length === 1) ctx.act(robberActions[0]);
        else ctx.select({ robberHex: id });
      });
      group.append(target);
    }
    svg.append(group);
  }

  // Moves of a bot turn not yet played out on the page: their pieces wait.
  const pending = (ctx.pending || []).map((n) => n.split(" "));
  const waitingRoads = new Set(pending.filter((w) => w[0] === "road").map((w) => Number(w[1])));
  const waitingNodes = new Set(pending.filter((w) => w[0] === "settle").map((w) => Number(w[1])));
  const waitingCities = new Set(pending.filter((w) => w[0] === "city").map((w) => Number(w[1])));
  const roadByPath = new Map((view.roads || []).filter((r) => !waitingRoads.has(r.path ?? 0)).map((r) => [r.path ?? 0, r.seat ?? 0]));
  for (const [path, [a, b]] of Object.entries(geo.pathNodes)) {
    const p = Number(path);
    const [x1, y1] = geo.nodeXY[a];
    const [x2, y2] = geo.nodeXY[b];
    const ix1 = x1 + (x2 - x1) * 0.16;
    const iy1 = y1 + (y2 - y1) * 0.16;
    const ix2 = x2 - (x2 - x1) * 0.16;
    const iy2 = y2 - (y2 - y1) * 0.16;
    if (roadByPath.has(p)) {
      const seat = roadByPath.get(p);
      svg.append(
        s("line", { x1: ix1, y1: iy1, x2: ix2, y2: iy2, stroke: "#222", "stroke-width": 11, "stroke-linecap": "round" }),
        s("line", { x1: ix1, y1: iy1, x2: ix2, y2: iy2, stroke: seatColour(seat), "stroke-width": 7, "stroke-linecap": "round", class: "road", "data-path": p, "data-seat": seat }),
      );
    }
    const action = legal.get(`road ${p}`);
    if (action) {
      // A wide invisible hit area (a finger's width on a phone) around a dark
      // casing and a bright dashed line that stand out on every terrain.
      const len = Math.hypot(ix2 - ix1, iy2 - iy1) || 1;
      const [nx, ny] = [(-(iy2 - iy1) / len) * 19, ((ix2 - ix1) / len) * 19];
      const hit = s("polygon", { class: "hit", points: `${ix1 + nx},${iy1 + ny} ${ix2 + nx},${iy2 + ny} ${ix2 - nx},${iy2 - ny} ${ix1 - nx},${iy1 - ny}` });
      const target = s(
        "g",
        { class: "target path-target", "data-target": `road ${p}`, "data-path": p },
        hit,
        s("line", { x1: ix1, y1: iy1, x2: ix2, y2: iy2, class: "path-casing" }),
        s("line", { x1: ix1, y1: iy1, x2: ix2, y2: iy2, class: "path-line" }),
      );
      svg.append(ctx.clickable(target, `build a road ${pathWords(view, p)}`, () => ctx.act(action)));
    }
  }

  for (const building of view.buildings || []) {
    const node = building.intersection ?? 0;
    if (waitingNodes.has(node)) continue;
    const [x, y] = geo.nodeXY[node];
    svg.append(buildingShape(x, y, building.seat ?? 0, building.city && !waitingCities.has(node), node));
  }
  for (const [node, [x, y]] of Object.entries(geo.nodeXY)) {
    for (const verb of ["settle", "city"]) {
      const action = legal.get(`${verb} ${node}`);
      if (!action) continue;
      const target = s(
        "g",
        { class: `target node-target ${verb}-target`, "data-target": `${verb} ${node}`, "data-intersection": node },
        s("circle", { cx: x, cy: y, r: 21, class: "hit" }),
        s("circle", { cx: x, cy: y, r: verb === "city" ? 16 : 10, class: "target-dot" }),
      );
      const where = nodeWords(view, Number(node));
      svg.append(ctx.clickable(target, verb === "settle" ? `build a settlement at ${where}` : `upgrade to a city at ${where}`, () => ctx.act(action)));
    }
  }
  if (ctx.lastMove) {
    const mark = spotShape(view, ctx.lastMove, "last-move");
    if (mark) svg.append(mark);
  }

  const robber = shownRobber(view, ctx);
  if (geo.hexXY[robber]) {
    const [hx, hy] = geo.hexXY[robber];
    // Beside the number token; in the middle of a hex without one (the desert).
    const numbered = (view.hexes || []).some((x) => (x.id ?? 0) === robber && x.number);
    const [rx, ry] = numbered ? [hx, hy] : [hx + 22, hy + 12];
    svg.append(
      s(
        "g",
        { class: "robber", transform: `translate(${rx - 22},${ry - 30})`, filter: "url(#shadow)" },
        s("ellipse", { cx: 0, cy: 22, rx: 9, ry: 4, fill: "#111", opacity: 0.4 }),
        s("path", { d: "M-7,21 Q-9,6 -4,2 A6,6 0 1 1 4,2 Q9,6 7,21 Z", fill: "#2b2b2b", stroke: "#eee", "stroke-width": 1.2 }),
        s("title", {}, `the robber (hex ${robber})`),
      ),
    );
  }
  return h("div", { class: "map-wrap" }, svg, robberChoice(ctx));
}

function robberChoice(ctx) {
  const hex = ctx.selection.robberHex;
  if (hex === undefined) return null;
  const actions = ctx.legal.filter((a) => a.notation.startsWith(`robber ${hex} `) || a.notation === `robber ${hex}`);
  if (!actions.length) return null;
  return h(
    "div",
    { class: "choice card", role: "dialog", "aria-label": "whom to rob" },
    h("strong", {}, `Robber to hex ${hex}: rob whom?`),
    actions.map((a) => h("button", { type: "button", class: "action", "data-notation": a.notation, onclick: () => ctx.act(a) }, a.notation.replace(/^robber \d+ ?/, "") || "nobody")),
    h("button", { type: "button", onclick: () => ctx.select({ robberHex: undefined }) }, "Cancel"),
  );
}

function terrainMark(terrain, cx, cy) {
  // A small pictogram per terrain, above the number token.
  const y = cy - 22;
  const g = s("g", { class: "terrain-mark", opacity: 0.85 });
  switch (terrain) {
    case "CATAN_FOREST":
      for (const dx of [-12, 0, 12]) g.append(s("path", { d: `M${cx + dx},${y - 11} l7,13 h-14 z`, fill: "#1f4d27" }));
      break;
    case "CATAN_HILLS":
      for (const [dx, dy] of [[-10, 0], [2, 0], [-4, -6]]) g.append(s("rect", { x: cx + dx, y: y + dy - 4, width: 11, height: 5, fill: "#8d3a1d", stroke: "#e7a07f", "stroke-width": 0.6 }));
      break;
    case "CATAN_PASTURE":
      g.append(s("ellipse", { cx, cy: y - 2, rx: 10, ry: 6, fill: "#fafafa" }), s("circle", { cx: cx + 10, cy: y - 4, r: 3.5, fill: "#333" }));
      break;
    case "CATAN_FIELDS":
      for (const dx of [-8, 0, 8]) g.append(s("path", { d: `M${cx + dx},${y + 3} v-12 m0,2 l-3,-3 m3,3 l3,-3 m-3,2 l-3,-3 m3,3 l3,-3`, stroke: "#9c7a12", "stroke-width": 1.6, fill: "none" }));
      break;
    case "CATAN_MOUNTAINS":
      g.append(s("path", { d: `M${cx - 16},${y + 4} l10,-15 l6,8 l5,-6 l11,13 z`, fill: "#5d636b" }), s("path", { d: `M${cx - 9},${y - 6} l3,-5 l3,4 z`, fill: "#fff" }));
      break;
    case "CATAN_DESERT":
      g.append(s("circle", { cx, cy: y - 2, r: 7, fill: "#f0b83c" }));
      break;
    default:
      break;
  }
  return g;
}

function buildingShape(x, y, seat, city, node) {
  const colour = seatColour(seat);
  const d = city
    ? `M${x - 13},${y + 9} v-12 l6,-6 l6,6 v-3 h14 v15 z`
    : `M${x - 8},${y + 7} v-9 l8,-8 l8,8 v9 z`;
  return s(
    "path",
    { d, fill: colour, stroke: "#1a1a1a", "stroke-width": 2, class: city ? "city" : "settlement", "data-intersection": node, "data-seat": seat, filter: "url(#shadow)" },
    s("title", {}, `${city ? "city" : "settlement"} of seat ${seat} on intersection ${node}`),
  );
}

function resourceChips(resources, known) {
  return RESOURCES.map((r) => {
    const n = count(resources, r);
    if (!n) return null;
    return h("span", { class: `chip res-${r}`, title: known ? `${r} (known)` : r }, `${n} ${r}`);
  });
}

/** While moves play out: the last of ``verb``'s moves shown so far (its words), else null. */
function lastShown(ctx, verb) {
  const shown = ctx.shown || [];
  for (let i = shown.length - 1; i >= 0; i--) if (shown[i].startsWith(`${verb} `)) return shown[i].split(" ");
  return null;
}

/** The robber where the moves shown so far left it (the view's once all are shown). */
function shownRobber(view, ctx) {
  if (!(ctx.pending || []).some((n) => n.startsWith("robber "))) return view.robberHex ?? 0;
  const moved = lastShown(ctx, "robber");
  if (moved) return Number(moved[1]);
  const desert = (view.hexes || []).find((x) => x.terrain === "CATAN_DESERT");
  return desert ? desert.id ?? 0 : view.robberHex ?? 0;
}

function drawPanels(view, ctx) {
  // The dice as the moves shown so far left them.
  const rolled = ctx.pending && ctx.pending.some((n) => n.startsWith("dice ")) ? lastShown(ctx, "dice") : null;
  const dice = rolled ? Number(rolled[1]) : view.dice;
  const players = view.players || [];
  const acting = view.actingSeat ?? 0;
  const turn = view.turnSeat ?? 0;
  const setup = view.phase === "CATAN_SETUP_SETTLEMENT" || view.phase === "CATAN_SETUP_ROAD";
  const info = h(
    "div",
    { class: "card catan-info" },
    h(
      "div",
      { class: "row wrap" },
      h("span", { class: "pill" }, setup ? "Set-up" : `Turn ${view.turnNumber ?? 0} / ${view.turnLimit ?? 0}`),
      h("span", { class: "pill" }, `Phase: ${PHASES[view.phase] || view.phase}`),
      h("span", { class: "pill dice", title: "last dice total", id: "dice" }, `Dice ${dice || "–"}`),
      h("span", { class: "pill" }, `Dev deck: ${view.devDeckCount ?? 0}`),
    ),
    dice ? h("p", { class: "production", id: "production" }, `Last roll ${dice}: ${productionWords(view, dice, ctx.viewer)}`) : null,
    h("div", { class: "row wrap bank" }, h("span", { class: "small muted" }, "Bank:"), RESOURCES.map((r) => h("span", { class: `chip res-${r}` }, `${count(view.bank, r)} ${r}`))),
    offerBox(view, ctx),
    view.winners && view.winners.length ? h("p", { class: "winners" }, `Winners: ${view.winners.map((w) => ctx.seatLabel(w)).join(", ")}`) : null,
  );
  const table = h(
    "div",
    { class: "players" },
    players.map((p) => {
      const seat = p.seat ?? 0;
      const you = seat === ctx.viewer;
      const vp = (p.victoryPoints ?? 0) >= 0 && p.victoryPoints !== undefined ? p.victoryPoints : p.publicVictoryPoints ?? 0;
      const hand = p.resourcesVisible
        ? h("div", { class: "hand", "data-hand": seat }, resourceChips(p.resources, false), (p.resourceCount ?? 0) === 0 ? h("span", { class: "muted small" }, "no cards") : null)
        : h(
            "div",
            { class: "hand hidden-hand", "data-hand": seat },
            h("span", { class: "card-back" }, pluralize(p.resourceCount ?? 0, "card")),
            resourceChips(p.resourcesKnown, true).some(Boolean) ? [" known: ", resourceChips(p.resourcesKnown, true)] : null,
            (p.resourcesUnknown ?? 0) ? h("span", { class: "muted small" }, ` (${p.resourcesUnknown} unknown)`) : null,
          );
      const dev = p.devVisible
        ? h(
            "div",
            { class: "devs" },
            DEV_CARDS.map(([key, name, text]) => {
              const n = count(p.devCards, key);
              if (!n) return null;
              const fresh = count(p.devNew, key);
              return h("span", { class: "chip dev", title: text }, `${n} ${name}${fresh ? ` (${fresh} new)` : ""}`);
            }),
            (p.devCount ?? 0) === 0 ? h("span", { class: "muted small" }, "no development cards") : null,
          )
        : h("div", { class: "devs" }, h("span", { class: "card-back dev-back" }, pluralize(p.devCount ?? 0, "development card")));
      return h(
        "div",
        { class: `player${seat === acting ? " acting" : ""}${you ? " you" : ""}`, "data-seat": seat, style: `--seat:${seatColour(seat)}` },
        h(
          "div",
          { class: "player-head" },
          h("span", { class: "seat-dot", style: `background:${seatColour(seat)}` }),
          h("strong", {}, ctx.seatLabel(seat)),
          you ? h("span", { class: "badge you" }, "you") : null,
          seat === turn && !setup ? h("span", { class: "badge" }, "turn") : null,
          h("span", { class: "vp", title: "victory points" }, `${vp} VP`),
        ),
        hand,
        dev,
        h(
          "div",
          { class: "stats small" },
          `knights ${p.knightsPlayed ?? 0} · road ${p.roadLength ?? 0} · left: ${p.settlementsLeft ?? 0} settlements, ${p.citiesLeft ?? 0} cities, ${p.roadsLeft ?? 0} roads`,
          p.longestRoad ? h("span", { class: "badge award" }, "Longest Road") : null,
          p.largestArmy ? h("span", { class: "badge award" }, "Largest Army") : null,
        ),
        you ? h("div", { class: "stats small muted" }, "trade rates: " + RESOURCES.map((r) => `${r} ${count(p.tradeRates, r) || 4}:1`).join(", ")) : null,
      );
    }),
  );
  const played = DEV_CARDS.map(([key, name]) => (count(view.devPlayed, key) ? `${count(view.devPlayed, key)} ${name}` : null)).filter(Boolean);
  return h("div", { class: "catan-panels" }, info, table, played.length ? h("p", { class: "small muted" }, `Development cards played: ${played.join(", ")}`) : null, costCard());
}

function costCard() {
  return h(
    "section",
    { class: "card cost-card", id: "cost-card", "aria-label": "building costs" },
    h("h2", {}, "Building costs"),
    COSTS.map(([name, cost]) =>
      h("div", { class: "cost-row" }, h("span", { class: "cost-name" }, name), Object.entries(cost).map(([r, n]) => h("span", { class: `chip res-${r}` }, `${n} ${r}`))),
    ),
  );
}

function myHand(view, ctx) {
  const me = (view.players || []).find((p) => (p.seat ?? 0) === ctx.viewer);
  return me && me.resourcesVisible ? me.resources || {} : {};
}

function stepper(label, value, max, onChange, id) {
  return h(
    "span",
    { class: "stepper", "data-resource": id },
    h("button", { type: "button", class: "step", "aria-label": `one ${label} less`, disabled: value <= 0, onclick: () => onChange(value - 1) }, "−"),
    h("span", { class: `chip res-${label}` }, `${value} ${label}`),
    h("button", { type: "button", class: "step", "aria-label": `one ${label} more`, disabled: value >= max, onclick: () => onChange(value + 1) }, "+"),
  );
}

/** Widgets in the actions box: the discard picker and the trade builder. */
export function widgets(ctx) {
  const view = ctx.state.catan || {};
  const notations = ctx.legal.map((a) => a.notation);
  const out = [];
  if (notations.some((n) => n.startsWith("discard "))) out.push(discardPicker(view, ctx));
  if (notations.some((n) => n.startsWith("give ") || n.startsWith("bank ") || n.startsWith("add give"))) out.push(tradeBuilder(view, ctx, notations));
  return out;
}

function discardPicker(view, ctx) {
  const hand = myHand(view, ctx);
  const need = view.discardLeft ?? 0;
  const chosen = ctx.selection.discard || {};
  const total = RESOURCES.reduce((sum, r) => sum + (chosen[r] || 0), 0);
  const set = (r, n) => ctx.select({ discard: { ...chosen, [r]: n } });
  return h(
    "div",
    { class: "discard-picker", id: "discard-picker" },
    h("strong", {}, `A 7: discard ${pluralize(need, "card")}`),
    h("div", { class: "steppers" }, RESOURCES.filter((r) => count(hand, r)).map((r) => stepper(r, chosen[r] || 0, Math.min(count(hand, r), (chosen[r] || 0) + need - total), (n) => set(r, n), r))),
    h("span", { class: "counter", id: "discard-count", "aria-live": "polite" }, `${total} of ${need} chosen`),
    h(
      "button",
      {
        type: "button",
        class: "primary",
        id: "discard-submit",
        disabled: total !== need,
        onclick: () => ctx.actMany(RESOURCES.flatMap((r) => Array(chosen[r] || 0).fill(`discard ${r}`))),
      },
      "Discard",
    ),
  );
}

function sideText(side) {
  return RESOURCES.filter((r) => side[r]).map((r) => `${side[r]} ${r}`).join(" ");
}

function tradeBuilder(view, ctx, notations) {
  const hand = myHand(view, ctx);
  const me = (view.players || []).find((p) => (p.seat ?? 0) === ctx.viewer) || {};
  const draft = ctx.selection.trade || { give: {}, get: {} };
  const set = (side, r, n) => ctx.select({ trade: { ...draft, [side]: { ...draft[side], [r]: n } } });
  const give = sideText(draft.give);
  const get = sideText(draft.get);
  const offer = give && get ? `give ${give} get ${get}` : "";
  const canOffer = notations.some((n) => n.startsWith("give ") || n.startsWith("add give"));
  const gives = RESOURCES.filter((r) => draft.give[r]);
  const gets = RESOURCES.filter((r) => draft.get[r]);
  let bank = "";
  if (gives.length === 1 && gets.length === 1 && draft.get[gets[0]] === 1) {
    const rate = count(me.tradeRates, gives[0]) || 4;
    const wanted = `bank ${rate} ${gives[0]} for ${gets[0]}`;
    if (draft.give[gives[0]] === rate && notations.includes(wanted)) bank = wanted;
  }
  const rates = RESOURCES.map((r) => `${r} ${count(me.tradeRates, r) || 4}:1`).join(" · ");
  return h(
    "details",
    { class: "trade-builder", id: "trade-builder", open: give || get ? true : undefined },
    h("summary", {}, "Trade (give ⇄ get)"),
    h("div", { class: "trade-side" }, h("span", { class: "side-label" }, "Give"), RESOURCES.filter((r) => count(hand, r)).map((r) => stepper(r, draft.give[r] || 0, count(hand, r), (n) => set("give", r, n), r))),
    h("div", { class: "trade-side" }, h("span", { class: "side-label" }, "Get"), RESOURCES.filter((r) => !draft.give[r]).map((r) => stepper(r, draft.get[r] || 0, 19, (n) => set("get", r, n), r))),
    h("p", { class: "small muted" }, `Bank rates: ${rates}`),
    h(
      "div",
      { class: "row wrap" },
      h("button", { type: "button", id: "trade-offer", disabled: !offer || !canOffer, onclick: () => ctx.act({ notation: offer }) }, offer ? `Offer ${give} for ${get}` : "Offer to the players"),
      h("button", { type: "button", id: "trade-bank", disabled: !bank, onclick: () => ctx.act({ notation: bank }) }, bank ? `Bank: ${give} for ${get}` : "Trade with the bank"),
      give || get ? h("button", { type: "button", onclick: () => ctx.select({ trade: { give: {}, get: {} } }) }, "Clear") : null,
    ),
  );
}

function offerBox(view, ctx) {
  if (!view.hasOffer) return null;
  const offer = view.offer || {};
  const answers = offer.answers || [];
  const words = { 1: "accepted", 2: "declined" };
  return h(
    "div",
    { class: "offer" },
    h("strong", {}, `Trade offer by ${seatName(view.turnSeat ?? 0, ctx.viewer)}: `),
    "gives ",
    resourceChips(offer.give, false),
    " for ",
    resourceChips(offer.get, false),
    h("div", { class: "small" }, answers.map((a, seat) => (words[a] ? `${seatName(seat, ctx.viewer)} ${words[a]}` : null)).filter(Boolean).join(", ") || "waiting for answers"),
  );
}
