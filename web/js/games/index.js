// One module per game: draw(parts, view, ctx) draws the board and the game's panels
// from the protobuf view alone (as the API returned it for this viewer).
import * as catan from "./catan.js";
import * as cite from "./cite.js";
import * as endeavor from "./endeavor.js";

export const GAMES = { catan, cite, endeavor };

/** The game's view inside a GameState or a GameView ({catan: {...}} etc.). */
export function viewOf(holder, gameType) {
  return (holder && holder[gameType]) || null;
}
