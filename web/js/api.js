// The browser-facing HTTP/JSON API (docs/http-api.md): protobuf JSON mapping, so
// field names are lowerCamelCase, 64-bit integers are strings, and default values
// may be missing (read them with `?? default`).

/** An error answer: `{"error": {"code": "ABORTED", "message": "...", "field": "..."}}`
 * (docs/http-api.md#errors). `status` and `code` are the gRPC code's name; `field`, the
 * request field it is about (when one is). */
export class ApiError extends Error {
  constructor(httpStatus, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${httpStatus}`);
    this.httpStatus = httpStatus;
    this.status = error.code || "UNKNOWN";
    this.code = this.status;
    this.field = error.field || "";
  }
}

/** What a player reads for an error: the server's message in plain words, never a
 * status code or markup. The one place the page turns an error into text. */
export function errorText(err) {
  if (!(err instanceof ApiError)) return String(err && err.message ? err.message : err);
  if (err.httpStatus === 0 && err.status === "UNAVAILABLE") return "The server cannot be reached. Check your connection and try again.";
  let text = (err.message || "").replace(/`/g, "").trim();
  if (!text) text = "The server refused this.";
  if (err.httpStatus === 429) text = `Too many requests: ${text}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

async function call(method, path, { body, token, query, signal } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, value);
  }
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ApiError(0, { error: { code: "UNAVAILABLE", message: `server unreachable: ${err.message}` } });
  }
  const text = await response.text();
  let json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = { error: { message: text.slice(0, 200) } };
  }
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

const enc = encodeURIComponent;

/** An EventSource for one of the API's SSE feeds. The server ends a complete stream
 * with `event: end` and a failed one with `event: rpc-error` (an error body): both
 * close it, or the browser would reconnect forever. Dropped connections reconnect by
 * themselves (EventSource's own `error`), resuming after the last event id. */
function stream(url, name, onEvent, onError, onConnection) {
  const source = new EventSource(url);
  source.addEventListener(name, (message) => onEvent(JSON.parse(message.data)));
  if (onConnection) {
    source.addEventListener("open", () => onConnection("open", source));
    // CONNECTING: the browser retries by itself (resuming after the last id);
    // CLOSED: it gave up, and the caller opens a new feed.
    source.addEventListener("error", () => onConnection(source.readyState === EventSource.CLOSED ? "closed" : "retrying", source));
  }
  source.addEventListener("end", () => source.close());
  source.addEventListener("rpc-error", (message) => {
    source.close();
    if (onError) onError(new ApiError(0, JSON.parse(message.data)));
  });
  return source;
}

export const api = {
  gameTypes: () => call("GET", "/v1/game-types"),
  listGames: (limit = 50) => call("GET", "/v1/games", { query: { limit } }),
  // Finished games (from the archive), filtered and paged: docs/archive.md.
  listFinishedGames: (filters) => call("GET", "/v1/games", { query: { status: "FINISHED", ...filters } }),
  createGame: (request) => call("POST", "/v1/games", { body: request }),
  // With an account's key (signed in) the seat belongs to the account (docs/accounts.md).
  join: (gameId, seat, name, inviteCode = "", key = "") =>
    call("POST", `/v1/games/${enc(gameId)}:join`, {
      token: key,
      body: { ...(seat === undefined || seat === null ? {} : { seat }), name, ...(inviteCode ? { inviteCode } : {}) },
    }),
  state: (gameId, token) => call("GET", `/v1/games/${enc(gameId)}`, { token }),
  submit: (gameId, token, request) =>
    call("POST", `/v1/games/${enc(gameId)}:submit`, { token, body: { token, ...request } }),
  setSeatOptions: (gameId, token, options) =>
    call("POST", `/v1/games/${enc(gameId)}:seatOptions`, { token, body: { token, ...options } }),
  // The record comes in pages (nextPageToken, docs/http-api.md): joined into one here.
  record: async (gameId, token) => {
    const path = `/v1/games/${enc(gameId)}/record`;
    const record = await call("GET", path, { token, query: { includeViews: "true" } });
    for (let next = record.nextPageToken; next; ) {
      const page = await call("GET", path, { token, query: { includeViews: "true", pageToken: next } });
      record.entries = [...(record.entries || []), ...(page.entries || [])];
      record.seatChanges = [...(record.seatChanges || []), ...(page.seatChanges || [])];
      Object.assign(record, { status: page.status, returns: page.returns, version: page.version });
      next = page.nextPageToken;
    }
    delete record.nextPageToken;
    return record;
  },
  listTournaments: () => call("GET", "/v1/tournaments"),
  tournament: (name) => call("GET", `/v1/tournaments/${enc(name)}`),
  // The ladder (docs/ladder.md): standings (empty: the server's first ladder), a bot's page.
  ladder: (gameType, players) => call("GET", "/v1/ladder", { query: { gameType, players } }),
  bot: (name) => call("GET", `/v1/bots/${enc(name)}`, { query: { limit: 100 } }),

  // Accounts (docs/accounts.md): the key travels as the Bearer, never in a URL.
  createAccount: (name) => call("POST", "/v1/accounts", { body: { name } }),
  account: (name) => call("GET", `/v1/accounts/${enc(name)}`),
  // `account` with the key: refused unless the key is that account's (a sign-in check).
  myGames: (key, account = "") => call("GET", "/v1/me/games", { token: key, query: { account } }),
  mySeat: (gameId, key) => call("GET", `/v1/games/${enc(gameId)}/mySeat`, { token: key }),
  gamesOf: (account, pageSize = 20) => call("GET", "/v1/games", { query: { account, pageSize } }),
  // Quick play (issue 60): answers once matched, {gameId, seat, token}; DELETE leaves.
  queue: (key, gameType, players, signal) =>
    call("POST", "/v1/me/queue", { token: key, body: { gameType, players }, signal }),
  leaveQueue: (key) => call("DELETE", "/v1/me/queue", { token: key }),

  /** The signed-in account's events (GET /v1/me/events, docs/accounts.md), read with
   * fetch, as an EventSource cannot send the key as the Bearer: onEvent gets each
   * PlayerEvent (parsed JSON) until it returns true, the stream ends or `signal` aborts. */
  async playerEvents(key, onEvent, signal) {
    const url = new URL("/v1/me/events", window.location.origin);
    let response;
    try {
      response = await fetch(url, { headers: { Accept: "text/event-stream", Authorization: `Bearer ${key}` }, signal });
    } catch (err) {
      if (err.name === "AbortError") throw err;
      throw new ApiError(0, { error: { code: "UNAVAILABLE", message: `server unreachable: ${err.message}` } });
    }
    if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => ({})));
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = ""; // one message at most: each is taken out once its blank line came
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const lines = buffer.slice(0, end).split("\n");
          buffer = buffer.slice(end + 2);
          const name = (lines.find((l) => l.startsWith("event:")) || "").slice(6).trim();
          const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5)).join("\n");
          if (name === "rpc-error") throw new ApiError(0, JSON.parse(data));
          if (name === "player-event" && onEvent(JSON.parse(data))) return;
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  },

  /** EventSource on a game's events; onEvent gets each GameEvent (parsed JSON). */
  watchGame(gameId, token, afterEventId, onEvent, onError, onConnection) {
    const url = new URL(`/v1/games/${enc(gameId)}/events`, window.location.origin);
    if (afterEventId) url.searchParams.set("afterEventId", afterEventId);
    if (token) url.searchParams.set("token", token);
    return stream(url, "game-event", onEvent, onError, onConnection);
  },

  watchTournament(name, onEvent) {
    const url = new URL(`/v1/tournaments/${enc(name)}/events`, window.location.origin);
    return stream(url, "tournament-event", onEvent);
  },
};

/** A request id for SubmitAction: a retry with the same id is never applied twice. */
export function requestId() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
}
