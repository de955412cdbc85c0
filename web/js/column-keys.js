// Column numbers typed as digits. Up to 9 columns a digit is a column. On a board
// of 10 to 16 columns "1" may begin 10..16: it points the cursor at column 1 and
// waits a moment for a second digit ("1" "2": column 12); Enter plays column 1 at
// once, the pause plays it too, and any other key lets it go (the cursor stays).

export const WAIT_MS = 1000;

export class ColumnKeys {
  /**
   * @param {object} a callbacks: width() the board's columns, play(col), point(col)
   *   the cursor, mayPlay() false while a field has the focus or a box is open
   */
  constructor(a) {
    this.a = a;
    this.timer = null; // set while a "1" waits for its second digit
  }

  get waiting() { return this.timer !== null; }

  /** One digit key (0..9); false when it meant nothing (a 0 alone is no column). */
  digit(d) {
    if (this.waiting) {
      this.cancel();
      if (10 + d <= this.a.width()) { this.a.play(10 + d); return true; }
      this.a.play(1); // "1" "9" on 12 columns: column 1, then the 9 on its own
    }
    if (d === 1 && this.a.width() >= 10) {
      this.a.point(1);
      this.timer = setTimeout(() => {
        this.timer = null;
        if (this.a.mayPlay()) this.a.play(1);
      }, WAIT_MS);
    } else if (d > 0) this.a.play(d);
    return d > 0;
  }

  /** Enter while a "1" waits: column 1 now. False when nothing waits. */
  now() {
    if (!this.waiting) return false;
    this.cancel();
    this.a.play(1);
    return true;
  }

  cancel() {
    clearTimeout(this.timer);
    this.timer = null;
  }
}
