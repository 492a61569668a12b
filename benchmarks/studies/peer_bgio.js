// boardgame.io's side of benchmarks/studies/peer_server.py: a trivial two-player counter game,
// served by boardgame.io's documented Server (in memory, SocketIO transport) and played
// closed-loop by its documented headless Client.
//
//   node benchmarks/studies/peer_bgio.js server PORT
//   node benchmarks/studies/peer_bgio.js load PORT GAMES WARMUP_S SECONDS MOVES_PER_GAME
//
// Server and load run as separate processes so that the server's CPU can be read from
// /proc. Both listen and connect on 127.0.0.1 only. NODE_PATH points at the npm cache
// that peer_server.py installs boardgame.io@0.50.2 into (benchmarks/.peer/node_modules).
//
// The load keeps GAMES matches going: each seat's client moves as soon as a state update
// from the server puts it to move; a finished match (MOVES_PER_GAME moves) is replaced
// by a new one made through the Lobby API. The move runs on the server only
// (client: false), so a move's round trip is the time from sending it to the mover's
// client receiving the server's update: the same push round trip gamehost's side times.
// It prints a line "measuring" when the warm-up ends, then one JSON line of results.
'use strict';

const MOVES_PER_GAME = Number(process.argv[7] || 500);

const Counter = {
  name: 'counter',
  setup: () => ({ n: 0 }),
  moves: {
    inc: {
      move: ({ G }) => {
        G.n += 1;
      },
      client: false,
    },
  },
  turn: { minMoves: 1, maxMoves: 1 },
  endIf: ({ G }) => (G.n >= MOVES_PER_GAME ? { moves: G.n } : undefined),
};

async function serve(port) {
  const { Server } = require('boardgame.io/server');
  const server = Server({ games: [Counter], origins: ['http://127.0.0.1'] });
  // Server.run listens on every interface; the benchmark keeps to 127.0.0.1.
  const listen = server.app.listen;
  server.app.listen = (p, callback) => listen.call(server.app, p, '127.0.0.1', callback);
  await server.run(port);
  console.log(`bgio serving on 127.0.0.1:${port}`);
}

function quantile(sorted, q) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function load(port, games, warmupS, seconds) {
  const { Client, LobbyClient } = require('boardgame.io/client');
  const { SocketIO } = require('boardgame.io/multiplayer');
  const address = `http://127.0.0.1:${port}`;
  const lobby = new LobbyClient({ server: address });
  const started = performance.now();
  const measureFrom = started + warmupS * 1000;
  const stopAt = measureFrom + seconds * 1000;
  let measuring = false;
  const totals = { moves: 0, events: 0, matches: 0, latencies: [] };

  // One match at a time in this slot, each seat a client of its own (one socket each).
  async function slot() {
    while (performance.now() < stopAt) {
      const { matchID } = await lobby.createMatch('counter', { numPlayers: 2 });
      const credentials = [];
      for (const playerID of ['0', '1']) {
        const joined = await lobby.joinMatch('counter', matchID, { playerID, playerName: `p${playerID}` });
        credentials.push(joined.playerCredentials);
      }
      await new Promise((resolve) => {
        const clients = [];
        let finished = false;
        const end = () => {
          if (finished) return;
          finished = true;
          clearTimeout(timer);
          for (const c of clients) c.stop();
          resolve();
        };
        const timer = setTimeout(end, Math.max(0, stopAt - performance.now()));
        for (const playerID of ['0', '1']) {
          const client = Client({
            game: Counter,
            numPlayers: 2,
            multiplayer: SocketIO({ server: address }),
            matchID,
            playerID,
            credentials: credentials[Number(playerID)],
            debug: false,
          });
          let seen = -1; // newest _stateID received
          let sentAt = null; // when this seat sent its pending move, and at which state
          let sentState = -1;
          client.subscribe((state) => {
            if (state === null || state._stateID === seen) return;
            seen = state._stateID;
            const now = performance.now();
            if (measuring && now < stopAt) totals.events += 1;
            if (sentAt !== null && state._stateID > sentState) {
              if (measuring && now < stopAt) {
                totals.moves += 1;
                totals.latencies.push(now - sentAt);
              }
              sentAt = null;
            }
            if (state.ctx.gameover) {
              totals.matches += 1;
              end();
              return;
            }
            if (now >= stopAt) {
              end();
              return;
            }
            if (state.ctx.currentPlayer === playerID && sentAt === null) {
              sentAt = now;
              sentState = state._stateID;
              client.moves.inc();
            }
          });
          clients.push(client);
          client.start();
        }
      });
    }
  }

  // A hard bound, whatever happens to the server or the lobby.
  setTimeout(() => {
    console.error('peer_bgio: still running 30 s after the end; giving up');
    process.exit(3);
  }, (warmupS + seconds + 30) * 1000).unref();
  setTimeout(() => {
    measuring = true;
    console.log('measuring');
  }, warmupS * 1000);
  await Promise.all(Array.from({ length: games }, slot));
  const sorted = totals.latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      moves: totals.moves,
      events: totals.events,
      matches: totals.matches,
      seconds,
      p50_ms: quantile(sorted, 0.5),
      p99_ms: quantile(sorted, 0.99),
    })
  );
  process.exit(0);
}

const [mode, port, games, warmupS, seconds] = process.argv.slice(2);
if (mode === 'server') {
  serve(Number(port));
} else if (mode === 'load') {
  load(Number(port), Number(games), Number(warmupS), Number(seconds));
} else {
  console.error('usage: peer_bgio.js server PORT | load PORT GAMES WARMUP_S SECONDS MOVES_PER_GAME');
  process.exit(2);
}
