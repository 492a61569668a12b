export function replayPage() {}
