// Seat tokens kept in this browser (localStorage), per game and seat, so a page
// reload or a second tab keeps its seat. A token is the seat's only credential.

const KEY = "gamehost.seats";
const INVITES = "gamehost.invites";

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

export function rememberSeat(gameId, seat, token) {
  const all = load();
  all[gameId] = { ...(all[gameId] || {}), [seat]: token };
  localStorage.setItem(KEY, JSON.stringify(all));
}

/** A private game's invite codes ({seat: code}), kept for its creator's share links. */
export function rememberInvites(gameId, codes) {
  if (!Object.keys(codes).length) return;
  const all = JSON.parse(localStorage.getItem(INVITES) || "{}");
  all[gameId] = codes;
  localStorage.setItem(INVITES, JSON.stringify(all));
}

export function invitesFor(gameId) {
  try {
    return JSON.parse(localStorage.getItem(INVITES) || "{}")[gameId] || {};
  } catch {
    return {};
  }
}

/** {seat: token} for the seats this browser holds in a game. */
export function seatsHeld(gameId) {
  return load()[gameId] || {};
}

export const SEAT_COLOURS = ["#d7263d", "#1b6ec2", "#f2a541", "#2e9e57", "#8e44ad", "#5d6d7e"];
export const SEAT_COLOUR_NAMES = ["red", "blue", "orange", "green", "purple", "grey"];

export function seatColour(seat) {
  return SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

/** "seat 2 · bot mcts-fast", a ladder bot's "seat 2 · bot its-name", or the seat's name. */
export function seatLabel(state, seat) {
  const info = (state.seats || []).find((s) => (s.index ?? 0) === seat) || {};
  // A registered bot (the ladder's) has its name and no level.
  const bot = info.botLevel || info.name || "random";
  const kind = info.kind === "BOT" ? `bot ${bot}` : info.name || "human";
  return `seat ${seat} · ${kind}`;
}
