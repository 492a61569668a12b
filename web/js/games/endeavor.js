export function draw() {}
