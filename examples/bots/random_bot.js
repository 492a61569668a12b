// A ladder bot in 20 lines of Node.js (docs/bot-protocol.md): it reads one JSON
// object a line on stdin and answers every "act" with a random legal move on stdout.
//
//   GAMEHOST_BOT_KEY=KEY gamehost bot run --target HOST:PORT --cmd "node examples/bots/random_bot.js"

const readline = require("readline");

const lines = readline.createInterface({ input: process.stdin });

lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "act") {
    const move = message.legal[Math.floor(Math.random() * message.legal.length)];
    process.stdout.write(JSON.stringify({ id: move.id }) + "\n");
  } else if (message.type === "end") {
    process.stderr.write(`game ${message.game_id} over: ${message.returns}\n`);
  }
});
