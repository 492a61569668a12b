// Cité: each city's five gauges (gold, wheat, health, civilians, army) with its
// granary and outpost, the cards in sight and what they do, the discard pile, and
// falls. Dealing is done on the board: pick a drawn card, then click a city.
import { h } from "../dom.js";
import { seatColour } from "../seats.js";

// What each card does when played (the rules as the engine applies them; the same
// text as the terminal client's gamehost/render/cite.py).
export const CARDS = {
  GRANARY: { colour: "#b8901c", text: "Builds a granary (if the city has none): it stores up to 2 wheat." },
  GOOD_WAR: { colour: "#a8322d", text: "War on a neighbour: both armies lose 1; the larger takes 1 civilian, then 1 gold or wheat; an outpost shields its city and falls." },
  OUTPOST: { colour: "#6d4c41", text: "Builds an outpost (if the city has none): it stores up to 4 army." },
  ALLEGIANCE: { colour: "#3949ab", text: "Pay 2 gold, or lose 1 civilian if the city has less. Cannot be discarded." },
  HOSPITAL: { colour: "#2e7d32", text: "+1 health." },
  FIRE: { colour: "#e0561b", text: "-2 wheat." },
  BARBARIANS: { colour: "#5d4037", text: "-1 wheat and -1 army." },
  CIVIL_WAR: { colour: "#880e4f", text: "-1 civilian, then -1 army." },
  LAND_OF_WELCOME: { colour: "#00838f", text: "Each neighbouring city gives 1 civilian to this one." },
};
const GAUGES = [
  ["gold", "Gold", "#d4a017"],
  ["wheat", "Wheat", "#c9a45c"],
  ["health", "Health", "#43a047"],
  ["civilians", "Civilians", "#1e88e5"],
  ["army", "Army", "#c62828"],
];
const PHASES = {
  CITE_UPKEEP_AND_ROLL: "upkeep and roll",
  CITE_LEVY: "levy",
  CITE_STORE: "store",
  CITE_DRAW: "draw",
  CITE_DEAL: "deal the drawn cards",
  CITE_RESOLVE: "resolve cards",
  CITE_WAR_SPOILS: "spoils of war",
  CITE_OVER: "game over",
};

export function cardSlug(card) {
  return card.toLowerCase().replace(/_/g, "-");
}

export function cardFace(card, attrs = {}) {
  const info = CARDS[card] || { colour: "#555", text: "" };
  return h(
    "div",
    { class: "cite-card", style: `--cc:${info.colour}`, "data-card": cardSlug(card), ...attrs },
    h("strong", {}, cardSlug(card).replace(/-/g, " ")),
    h("span", {}, info.text),
  );
}

export function verbOf(notation) {
  return notation.split(" ")[0];
}

export function hint(ctx) {
  const deals = ctx.legal.filter((a) => a.notation.startsWith("deal "));
  if (deals.length) return ctx.selection.card ? `Click a city to deal it the ${ctx.selection.card}.` : "Click one of your drawn cards, then the city to deal it to.";
  if (ctx.legal.some((a) => a.notation.startsWith("attack "))) return "Click a neighbouring city to attack it.";
  return "";
}

export function draw({ board }, view, ctx) {
  const cities = view.cities || [];
  const turn = view.turnSeat ?? 0;
  const deals = ctx.legal.filter((a) => a.notation.startsWith("deal "));
  const dealCards = [...new Set(deals.map((a) => a.notation.split(" ")[1]))];
  if (dealCards.length === 1 && !ctx.selection.card) ctx.selection.card = dealCards[0];
  const selected = ctx.selection.card;

  const top = h(
    "div",
    { class: "cite-top" },
    h("span", { class: "pill" }, `Round ${view.round ?? 0} / ${view.roundLimit ?? 0}`),
    h("span", { class: "pill" }, `Turn: ${ctx.seatLabel(turn)}`),
    h("span", { class: "pill" }, `Phase: ${PHASES[view.phase] || view.phase}`),
    h("span", { class: "pill" }, `Deck: ${view.deckCount ?? 0} cards`),
    view.winners && view.winners.length ? h("span", { class: "pill winners" }, `Winners: ${view.winners.map((w) => ctx.seatLabel(w)).join(", ")}`) : null,
  );

  const grid = h(
    "div",
    { class: "cite-cities" },
    cities.map((city) => {
      const seat = city.seat ?? 0;
      const dealTo = selected ? deals.find((a) => a.notation === `deal ${selected} to ${seat}`) : null;
      const attack = ctx.legal.find((a) => a.notation === `attack ${seat}`);
      const panel = h(
        "div",
        {
          class: `city${seat === turn ? " turn" : ""}${city.standing ? "" : " fallen"}${dealTo ? " deal-target" : ""}`,
          "data-city": seat,
          style: `--seat:${seatColour(seat)}`,
        },
        h(
          "div",
          { class: "player-head" },
          h("span", { class: "seat-dot", style: `background:${seatColour(seat)}` }),
          h("strong", {}, `City ${seat}`),
          h("span", { class: "muted small" }, ctx.seatLabel(seat).replace(/^seat \d+ · /, "")),
          seat === ctx.viewer ? h("span", { class: "badge you" }, "you") : null,
          (view.resolvingSeat ?? -1) === seat ? h("span", { class: "badge" }, "resolving") : null,
        ),
        h("div", { class: "gauges" }, GAUGES.map(([key, label, colour]) => gauge(city, key, label, colour))),
        h(
          "div",
          { class: "structures" },
          city.hasGranary ? h("span", { class: "badge", title: "stores up to 2 wheat" }, `Granary ${city.granaryWheat ?? 0}/2 wheat`) : null,
          city.hasOutpost ? h("span", { class: "badge", title: "stores up to 4 army" }, `Outpost ${city.outpostArmy ?? 0}/4 army`) : null,
        ),
        city.holdsCard
          ? h("div", { class: "held" }, h("span", { class: "small muted" }, "Card dealt to this city: "), city.card && city.card !== "CITE_CARD_UNSPECIFIED" ? cardFace(city.card) : h("div", { class: "cite-card back", title: "hidden from you" }, "?"))
          : null,
        city.standing ? null : h("div", { class: "fallen-mark" }, "FALLEN"),
        attack ? h("button", { type: "button", class: "action", "data-notation": attack.notation, onclick: () => ctx.act(attack) }, `Attack city ${seat}`) : null,
      );
      if (dealTo) ctx.clickable(panel, `deal the ${selected} to city ${seat}`, () => ctx.act(dealTo));
      return panel;
    }),
  );

  const drawn = view.drawn || [];
  const hand = drawn.length
    ? h(
        "div",
        { class: "card" },
        h("h2", {}, seatIsViewer(ctx, turn) ? "Cards you drew" : `Cards drawn by city ${turn}`),
        drawn.map((card) => {
          const slug = cardSlug(card);
          const face = cardFace(card, { class: `cite-card${slug === selected ? " selected" : ""}` });
          if (dealCards.includes(slug)) ctx.clickable(face, `choose ${slug} to deal`, () => ctx.select({ card: slug }));
          return face;
        }),
      )
    : null;

  const inSight = new Set([...drawn, ...cities.map((c) => c.card).filter((c) => c && c !== "CITE_CARD_UNSPECIFIED")]);
  const discard = view.discard || [];
  const side = h(
    "div",
    { class: "cite-side" },
    h(
      "div",
      { class: "card" },
      h("h2", {}, "Discard pile"),
      discard.length
        ? discard.map((entry) => h("div", { class: "discard-row small", title: (CARDS[entry.card] || {}).text || "" }, h("span", { class: "chip", style: `background:${(CARDS[entry.card] || {}).colour}` }, `${entry.count ?? 0}× ${cardSlug(entry.card).replace(/-/g, " ")}`), h("span", { class: "muted" }, (CARDS[entry.card] || {}).text || "")))
        : h("p", { class: "muted" }, "Empty."),
    ),
    h(
      "div",
      { class: "card" },
      h("h2", {}, "What the cards do"),
      h("ul", { class: "plain small" }, Object.entries(CARDS).map(([card, info]) => h("li", { class: inSight.has(card) ? "in-sight" : "" }, h("span", { class: "chip", style: `background:${info.colour}` }, cardSlug(card).replace(/-/g, " ")), ` ${info.text}`))),
      h("p", { class: "small muted" }, "A city falls when its civilians reach 0 or 10, or its army 10. The last city standing wins."),
    ),
  );
  board.append(...[top, hand, grid, side].filter(Boolean));
}

function seatIsViewer(ctx, seat) {
  return ctx.viewer === seat;
}

function gauge(city, key, label, colour) {
  const value = city[key] ?? 0;
  const stored = key === "wheat" ? city.granaryWheat ?? 0 : key === "army" ? city.outpostArmy ?? 0 : 0;
  const danger = (key === "civilians" && (value <= 1 || value >= 9)) || (key === "army" && value >= 9);
  const cells = [];
  for (let i = 1; i <= 10; i++) {
    let cls = "";
    if (i <= value) cls = "on";
    else if (i <= value + stored) cls = "stored";
    cells.push(h("span", { class: cls }));
  }
  return h(
    "div",
    { class: "gauge", "data-gauge": key, title: stored ? `${label} ${value} (+${stored} stored)` : `${label} ${value}` },
    h("span", {}, label),
    h("div", { class: `bar${danger ? " danger" : ""}`, style: `--g:${colour}` }, cells),
    h("span", { class: `value${danger ? " error" : ""}` }, String(value)),
  );
}
