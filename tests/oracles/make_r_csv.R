# Oracle fixture: a table as R's write.csv writes it (docs/input.md: "Files as ... R's write.csv
# (quoted names, a row-names column named "") ... read as they are").  Run by hand, from the
# repository's root (R 4.2.2 made the committed file):
#     Rscript tests/oracles/make_r_csv.R
# tests/test_csv_fast_path.py::test_a_table_r_wrote_reads_as_written reads the file it writes.
d <- data.frame(
  user = c("u1", "#u2", "u 3", "u,4", "u\"5"),
  item = c(7L, 8L, 9L, 10L, 11L),
  y = c(1L, 0L, 1L, 0L, 1L),
  score = c(0.25, -0.5, 1e-300, 0.75, 0.125)
)
write.csv(d, "tests/oracles/fixtures/r_write_csv.csv")
