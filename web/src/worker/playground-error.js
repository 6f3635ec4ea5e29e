// The error the playground's engines throw for a request they cannot serve (the page shows its
// message in the status line, named by e.name).
export class PlaygroundError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PlaygroundError';
  }
}
