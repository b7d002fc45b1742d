// A module whose evaluation never ends, as a bundle's chunk whose fetch
// stalls: importing it never settles.
await new Promise(() => {});
export {};
