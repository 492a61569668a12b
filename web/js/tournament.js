export function tournamentPage() {}
export function tournamentsPage() {}
