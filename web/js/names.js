// Who plays a listed game (a GameSummary's seats) and who won it (its returns), as the
// lobby, history, "My games" and a player's page show them.
import { h } from "./dom.js";

/** One seat: an account's name (a link to its page; a bot account marked), a guest's
 * name marked "guest", a house bot's level, or "free". */
export function seatName(seat) {
  if (seat.account) {
    const bot = seat.accountKind === "ACCOUNT_BOT";
    return h(
      "span",
      { class: "who account", dataset: { account: seat.account } },
      h("a", { href: `#/player/${encodeURIComponent(seat.account)}` }, seat.account),
      bot ? h("span", { class: "badge" }, "bot") : null,
    );
  }
  if (seat.kind === "BOT") return h("span", { class: "who bot" }, `bot ${seat.name || seat.botLevel || "random"}`);
  if (seat.guest) return h("span", { class: "who guest" }, seat.name || "guest", h("span", { class: "badge guest" }, "guest"));
  return h("span", { class: "who free muted" }, "free");
}

/** The seats of a game, in seat order, comma-separated. */
export function seatNames(game) {
  const seats = game.seats || [];
  return h("span", { class: "seat-names" }, seats.map((seat, i) => [i ? ", " : "", seatName(seat)]));
}

/** The seats with the highest return (several in a shared win); [] while none. */
export function winners(game) {
  const returns = game.returns || [];
  if (!returns.length) return [];
  const best = Math.max(...returns);
  return returns.map((r, i) => (r === best ? i : -1)).filter((i) => i >= 0);
}

/** The winner's name(s), "-" for a game not played out. */
export function winnerCell(game) {
  const seats = game.seats || [];
  const won = winners(game);
  if (!won.length) return h("span", { class: "winner muted" }, "-");
  return h("span", { class: "winner", dataset: { seats: won.join(" ") } }, won.map((i, n) => [n ? ", " : "", seats[i] ? seatName(seats[i]) : `seat ${i}`]));
}
