// The game itself, in the browser: a board of any size rebuilt from its move
// list. The gateway is the authority; this model only lets the page draw any
// prefix of the move list (stepping through history), find the winning line,
// and compute hint rings the same way connect4/hints.py does.
//
// Columns are 1-based here as at every edge of the system; rows are 1-based
// from the bottom. Player 0 = red (moves first), player 1 = yellow.

export class Game {
  constructor(width = 7, height = 6, k = 4, moves = []) {
    this.width = width;
    this.height = height;
    this.k = k;
    this.moves = [];
    // cells[c][r] with c, r 0-based; null = empty, else player 0/1
    this.cells = Array.from({ length: width }, () => Array(height).fill(null));
    this.heights = Array(width).fill(0);
    this.winLine = null; // [[col,row],...] 1-based once someone has won
    for (const m of moves) this.play(m);
  }

  static from(state, upto = null) {
    const moves = upto === null ? state.moves : state.moves.slice(0, upto);
    return new Game(state.width, state.height, state.k, moves);
  }

  get ply() { return this.moves.length; }
  get toMove() { return this.ply % 2; }
  get isFull() { return this.ply >= this.width * this.height; }
  get isOver() { return this.winLine !== null || this.isFull; }
  get winner() { return this.winLine ? (this.ply - 1) % 2 : null; }

  cell(col, row) { return this.cells[col - 1][row - 1]; }
  canPlay(col) {
    return Number.isInteger(col) && col >= 1 && col <= this.width && this.heights[col - 1] < this.height;
  }
  /** Landing row (1-based) of a column, or null when it is full. */
  nextRow(col) { return this.canPlay(col) ? this.heights[col - 1] + 1 : null; }

  play(col) {
    if (this.isOver) throw new Error("game over");
    if (!this.canPlay(col)) throw new Error(`column ${col} cannot be played`);
    const player = this.toMove;
    const row = this.heights[col - 1] + 1;
    this.cells[col - 1][row - 1] = player;
    this.heights[col - 1] = row;
    this.moves.push(col);
    const line = this.lineThrough(col, row, player);
    if (line) this.winLine = line;
    return row;
  }

  /** The longest line of `player` through (col,row) if it reaches k, else null. */
  lineThrough(col, row, player, cells = this.cells) {
    const at = (c, r) => (c >= 1 && c <= this.width && r >= 1 && r <= this.height ? cells[c - 1][r - 1] : null);
    for (const [dc, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
      const line = [[col, row]];
      for (const sign of [1, -1]) {
        let c = col + sign * dc, r = row + sign * dr;
        while (at(c, r) === player) { line.push([c, r]); c += sign * dc; r += sign * dr; }
      }
      if (line.length >= this.k) return line.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    }
    return null;
  }

  /** Would `player` complete a line by a stone on the empty cell (col,row)? */
  completes(col, row, player) {
    if (row < 1 || row > this.height || this.cells[col - 1][row - 1] !== null) return false;
    this.cells[col - 1][row - 1] = player;
    const ok = this.lineThrough(col, row, player) !== null;
    this.cells[col - 1][row - 1] = null;
    return ok;
  }

  /** Hints for the side to move, as connect4/hints.py (and Connect4-rs): wins
   * now, must block, and loses at once = after this move the opponent has an
   * immediate win (a threat left unblocked, or the cell just above), listed
   * whether or not a win exists; a winning move is never losing. 1-based columns. */
  hints() {
    const empty = { winning_moves: [], must_block: [], losing_moves: [] };
    if (this.isOver) return empty;
    const me = this.toMove, them = 1 - me;
    const legal = [];
    for (let c = 1; c <= this.width; c++) if (this.canPlay(c)) legal.push(c);
    const win = legal.filter((c) => this.completes(c, this.heights[c - 1] + 1, me));
    const block = legal.filter((c) => this.completes(c, this.heights[c - 1] + 1, them));
    // after our stone in c the opponent still has every threat but c's, and c's next cell
    const losing = legal.filter((c) => !win.includes(c)
      && (block.some((b) => b !== c) || this.completes(c, this.heights[c - 1] + 2, them)));
    return { winning_moves: win, must_block: block, losing_moves: losing };
  }
}

export const COLOURS = ["red", "yellow"];
export const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** Column label for people: a..z for narrow boards, numbers otherwise. */
export function colName(col) { return String(col); }
