"""books: book data files (``books/*.txt``), the bookgen coordinator and its
workers (:mod:`books.bookgen`) and the analysis-book generator
(:mod:`books.analysis_gen`).

File names say the board: ``7x6-opening.txt`` is a 7x6 move book,
``7x6-analysis.txt`` a 7x6 analysis book (the formats are in
:mod:`connect4.book`; loading and asking them: :mod:`connect4.bookset`).
"""

from pathlib import Path

BOOK_DIR = Path(__file__).resolve().parent
