/*
 * perfeval._native, module.c: the method table and the module's init, nothing else.
 */
#include "native.h"

static PyMethodDef methods[] = {
    {"parse", nv_parse, METH_VARARGS, "Read whitespace/comma separated numbers into float32/int32 columns."},
    {"parse_fd", nv_parse_fd, METH_VARARGS, "Read a file descriptor to its end and parse it like parse()."},
    {"parse_table", nv_parse_table, METH_VARARGS, "Read a numeric table, one record a line, into float64 columns."},
    {"fast_csv_ok", nv_fast_csv_ok, METH_VARARGS, "Whether parse_table reads a CSV/TSV body as a CSV parser would."},
    {"parse_delimited", nv_parse_delimited, METH_VARARGS,
     "Read a CSV/TSV body without quotes into number, identity and text columns, as the CSV parser's path."},
    {"binarise", nv_binarise, METH_VARARGS, "Binarise the targets in place around their mean."},
    {"sort", nv_sort, METH_VARARGS, "Sort (targets, predictions) in place exactly as PERF's quicksort does."},
    {"numba_argsort", nv_numba_argsort, METH_VARARGS, "numba's quicksort argsort of each segment of float64 keys (ranx's order)."},
    {"ties_by_id", nv_ties_by_id, METH_VARARGS, "Each tie's rows sorted by id descending as text (trec_eval's order)."},
    {"roc_input_ties", nv_roc_input_ties, METH_VARARGS, "ROC pair counts with ties broken by input order, in one walk."},
    {"roc_input_hash", nv_roc_input_hash, METH_VARARGS, "roc_input_ties' numbers from a hash of the distinct scores, no sort of rows; None past cap."},
    {"sort_by_pred", nv_sort_by_pred, METH_VARARGS, "Sort (targets, predictions) by prediction: a stable radix sort, not PERF's tie order."},
    {"fractions", nv_fractions, METH_VARARGS, "Tie fractions (positives / size of each 1e-15 tie chain)."},
    {"acc_sweep", nv_acc_sweep, METH_VARARGS, "Accuracy/cost sweep: max_acc_thresh, count, plot."},
    {"confusion", nv_confusion, METH_VARARGS, "Confusion counts at a threshold."},
    {"percent_counts", nv_percent_counts, METH_VARARGS, "Confusion counts of -percent mode."},
    {"roc", nv_roc, METH_VARARGS, "ROC area (and plot)."},
    {"r50", nv_r50, METH_VARARGS, "ROC area up to N negatives, PERF's R50."},
    {"lift_plot", nv_lift_plot, METH_VARARGS, "Lift plot lines."},
    {"apr", nv_apr, METH_VARARGS, "PERF's average precision (and PR plot)."},
    {"ranks", nv_ranks, METH_VARARGS, "PRB, TOP1, TOP10, RKL, NTOP."},
    {"slq", nv_slq, METH_VARARGS, "SLAC Q-score."},
    {"rms", nv_rms, METH_VARARGS, "Root mean squared error."},
    {"cxe", nv_cxe, METH_VARARGS, "Mean cross-entropy in bits (rewrites targets, as PERF)."},
    {"nrm", nv_nrm, METH_VARARGS, "L_P norm error."},
    {"ca1", nv_ca1, METH_VARARGS, "Calibration over 19 overlapping bins."},
    {"ca2", nv_ca2, METH_VARARGS, "Sliding-window calibration."},
    {"stats", nv_stats, METH_VARARGS, "Threshold statistics of one section."},
    {"add_ext", nv_add_ext, METH_VARARGS, "a + b in 80-bit, rounded to double."},
    {"midpoint", nv_midpoint, METH_VARARGS, "(a + b) / 2 in 80-bit, rounded to double."},
    {"c_int_sum", nv_c_int_sum, METH_VARARGS, "C's (int)(a + b), x86 semantics."},
    {"range_scan", nv_range_scan, METH_VARARGS, "First out-of-range and first negative prediction."},
    {"div_ext", nv_div_ext, METH_VARARGS, "a / b in 80-bit, rounded to double."},
    {"max_lift", nv_max_lift, METH_VARARGS, "n / (T1 + eps) in 80-bit."},
    {"zeros", nv_zeros, METH_VARARGS, "A zero-filled Buf of n bytes."},
    {"empty", nv_empty, METH_VARARGS, "A Buf of n bytes, not cleared (kept within RETAIN when it dies)."},
    {"copy", nv_copy, METH_VARARGS, "A Buf holding a copy of a buffer."},
    {"hist_apr", nv_hist_apr, METH_VARARGS, "Modern APR numerator from a histogram (pos, neg)."},
    {"hist_apr_groups", nv_hist_apr_groups, METH_VARARGS, "Modern APR numerators of every group's histogram."},
    {"hist_ap_groups", nv_hist_ap_groups, METH_VARARGS, "The AP of every group's histogram."},
    {"cells_hist", nv_cells_hist, METH_VARARGS, "Every group's histogram from cells summarising rows."},
    {"hist_ca2", nv_hist_ca2, METH_VARARGS, "Modern CA2 from a histogram (scores, pos, neg, S)."},
    {"disc_sums", nv_disc_sums, METH_VARARGS, "Sums of 1/log2(p + 2) over runs of positions [first, stop)."},
    {"expected_rr", nv_expected_rr, METH_VARARGS, "Expected reciprocal rank of the first relevant case per tie group."},
    {"plain_tokens", nv_plain_tokens, METH_VARARGS, "Field offsets of a plain file of `width` fields a line, or None."},
    {"same_tokens", nv_same_tokens, METH_VARARGS, "Token i of a equals token order[i] of b, for every i."},
    {"boot_hist_multi", nv_boot_hist_multi, METH_VARARGS, "A plan's statistics of Poisson replicates of a summary."},
    {"boot_rows_multi", nv_boot_rows_multi, METH_VARARGS, "A plan's statistics of case-level Poisson replicates, per score column."},
    {"boot_hist_draws", nv_boot_hist_draws, METH_VARARGS, "The counts of replicates of a summary (one replicate's drawn cells, or all)."},
    {"poisson_rows", nv_poisson_rows, METH_VARARGS, "Poisson(1) case weights of bootstrap replicates."},
    {"jack_multi", nv_jack_multi, METH_VARARGS, "A plan's statistics of the delete-a-group jackknife."},
    {"rep_finish", nv_rep_finish, METH_VARARGS, "A plan's statistics of one summary."},
    {"delong_hist", nv_delong_hist, METH_VARARGS, "DeLong's structural-component sums from a histogram."},
    {"delong_rows", nv_delong_rows, METH_VARARGS, "Each case's DeLong structural component, in case order."},
    {"exact_sums", nv_exact_sums, METH_VARARGS, "Each group's exact sum of its rows' products of 1-3 float64 factors, times 2**1126 (a Python int), or None past float64's range."},
    {"regression_sums", nv_regression_sums, METH_VARARGS, "Each group's exact regression sums (w y, w y^2, w r, w r^2, w |r|, w max(r, 0), w |r|/max(|y|, eps)) in one pass, or their correctly rounded quotients by the weights' sum."},
    {"divide_ints", nv_divide_ints, METH_VARARGS, "a / b of two Python integers by regression_sums' correctly rounded division (for the tests)."},
    {"group_order", nv_group_order, METH_VARARGS, "Rows counted into their groups (codes 0..G-1): each group's rows in row order, and where each group starts."},
    {"runs", nv_runs, METH_VARARGS, "Distinct values of a sorted float64 array and their counts."},
    {"tie_table", nv_tie_table, METH_VARARGS, "The ties of a ranking sorted by query and descending score: per tie its head, query, position, rows and sums."},
    {"hist_merge", nv_hist_merge, METH_VARARGS, "The summary of unit cases from the sorted scores of the positives and of the negatives."},
    {"group_codes_int64", nv_group_codes_int64, METH_VARARGS, "The distinct int64 ids, sorted, and each row's code (a hash table of the ids)."},
    {"group_auc_rows", nv_group_auc_rows, METH_VARARGS, "Each group's Mann-Whitney sum, positives and negatives, from rows in any order."},
    {"tie_table_rows", nv_tie_table_rows, METH_VARARGS, "tie_table of the rows in query_order's order, without the order (whole grades), or None."},
    {"group_hist_rows", nv_group_hist_rows, METH_VARARGS, "Every group's summary (distinct scores ascending, positive and negative counts, bounds) from unweighted rows in any order."},
    {"group_totals", nv_group_totals, METH_VARARGS, "Each of the groups' positive and negative weight (summed cell by cell) and whether a score is at or outside 0 or 1."},
    {"score_order", nv_score_order, METH_VARARGS, "The rows in ascending score order (a stable radix sort) and the scores in that order, bit for bit."},
    {"hist_tie_groups", nv_hist_tie_groups, METH_VARARGS, "The tie table (query, size, first, rel, sizes, P) of every group from its summary with whole counts."},
    {"hist_auc_groups", nv_hist_auc_groups, METH_VARARGS, "Each group's Mann-Whitney sum, positives and negatives from its summary with whole counts."},
    {"hist_groups", nv_hist_groups, METH_VARARGS, "A PERF measure's parts for every group from the groups' summaries (counts, sq, ca1, ca2, slq, r50, prb, ntop)."},
    {"split_classes", nv_split_classes, METH_VARARGS, "The positives' scores and the negatives' into two arrays, in one pass."},
    {"hist_merge_inplace", nv_hist_merge_inplace, METH_VARARGS, "hist_merge of the two classes' sorted scores held in one buffer, written over it."},
    {"class_blocks", nv_class_blocks, METH_VARARGS, "The K*K blocks of a multiclass summary (offsets, scores, weights), each column sorted once."},
    {"class_pairs", nv_class_pairs, METH_VARARGS, "A multiclass summary's pair sums U (K*K), bit for bit ClassSummary.pairs()'s."},
    {"class_hist", nv_class_hist, METH_VARARGS, "The binary histogram of one column's cells of a multiclass summary, or of all (micro)."},
    {"class_walk", nv_class_walk, METH_VARARGS, "The sums of ROC and AP over a multiclass summary's one-vs-rest or micro histogram, walking its blocks without making it."},
    {"class_tables", nv_class_tables, METH_VARARGS, "Rows added to a multiclass summary's argmax tables (unique maxima; ties by tie size, whole weights) and top-k table; the rows that are no probabilities."},
    {"class_group_auc", nv_class_group_auc, METH_VARARGS, "Each group's one-vs-rest Mann-Whitney sum and cases of every class, its rows counted into groups once."},
    {"group_pav", nv_group_pav, METH_VARARGS, "Each group's weighted isotonic regression of its cells' shares of positives (pool adjacent violators)."},
    {"group_below", nv_group_below, METH_VARARGS, "Each cell's weight of the cells before it in its group, added one by one."},
    {"group_bin_sums", nv_group_bin_sums, METH_VARARGS, "Every group's weight, positive weight and score sum in each of its calibration bins (equal width or mass)."},
    {"ece_of_bins", nv_ece_of_bins, METH_VARARGS, "Each group's calibration error (l1, l2, max; debiased) from its bins' sums, as the numpy expressions."},
    {"group_ece", nv_group_ece, METH_VARARGS, "Each group's calibration error from its summary: group_bin_sums then ece_of_bins, without the tables."},
    {"bin_sums_split", nv_bin_sums_split, METH_VARARGS, "group_bin_sums of the summary of unit cases from the classes' sorted scores."},
    {"brier_cells", nv_brier_cells, METH_VARARGS, "Every group's Brier score parts (MCB, DSC, UNC; Murphy's or CORP's) from its cells."},
    {"brier_split", nv_brier_split, METH_VARARGS, "The Brier score parts of the summary of unit cases from the classes' sorted scores."},
    {"fit_cells", nv_fit_cells, METH_VARARGS, "Which groups have a logistic recalibration, and their live cells when some are left out."},
    {"logit_fit", nv_logit_fit, METH_VARARGS, "Each group's logistic recalibration (the offset fit or the joint fit) by Newton's method."},
    {"logit_fit_classes", nv_logit_fit_classes, METH_VARARGS, "The logistic recalibration of one group given as its positives' and negatives' cells."},
    {"fit_why", nv_fit_why, METH_VARARGS, "Why the joint fit of each of the groups has no value: one live cell, the classes separated, or neither."},
    {"class_runs", nv_class_runs, METH_VARARGS, "One class's sorted scores as its cells (values, counts), or None when they are distinct."},
    {"hist_weighted", nv_hist_weighted, METH_VARARGS, "The summary of weighted cases: distinct scores with each class's weight added in row order (a stable radix sort)."},
    {"op_pick", nv_op_pick, METH_VARARGS, "The operating point a rule picks over one summary (its index from the top, its value), in one pass."},
    {"op_pauc", nv_op_pauc, METH_VARARGS, "The partial area under one summary's ROC curve over an FPR or TPR range, in one pass."},
    {"op_pick_groups", nv_op_pick_groups, METH_VARARGS, "op_pick over every group's summary (the groups' cells one after another), in one pass."},
    {"op_pauc_groups", nv_op_pauc_groups, METH_VARARGS, "op_pauc over every group's summary (the groups' cells one after another), in one pass."},
    {"split_sum", nv_split_sum, METH_VARARGS, "ROC's or APR's sum from the sorted scores of the positives and of the negatives."},
    {"hist_sum", nv_hist_sum, METH_VARARGS, "One sum of a measure over a summary, bit for bit the numpy expression's."},
    {"query_order", nv_query_order, METH_VARARGS, "Rows sorted by query code, then by descending score (counted into queries, each sorted on its own)."},
    {"join_ids", nv_join_ids, METH_VARARGS, "Join two id columns (text + int64 offsets): the permutation, or None."},
    {"lookup_ids", nv_lookup_ids, METH_VARARGS, "Each submission record's first equal key record (records of `width` bytes), -1 for none."},
    {"trec_read", nv_trec_read, METH_VARARGS, "Read a TREC qrels or run file: id codes, sorted vocabularies, numbers."},
    {"trec_duplicate", nv_trec_duplicate, METH_VARARGS, "The first (qcode, dcode) pair two rows give, as rows (a, b), or None."},
    {"vocab_map", nv_vocab_map, METH_VARARGS, "Each id of one sorted str vocabulary located in another (-1 when absent)."},
    {"trec_join", nv_trec_join, METH_VARARGS, "Each run row located in judgments sorted by (query, document): (row of the judgment, query code)."},
    {"release_cache", nv_release_cache, METH_VARARGS, "Unmap the kept scratch buffers, the largest first, until at most keep bytes are left (0: all)."},
    {"cache_bytes", nv_cache_bytes, METH_NOARGS, "(mappings, bytes) of the kept scratch buffers."},
    {"cache_limit", nv_cache_limit, METH_VARARGS, "Set how many bytes of freed scratch mappings are kept; the previous limit."},
    {"keep_heap", nv_keep_heap, METH_NOARGS, "Keep malloc's freed memory in the process (glibc): for a command's process."},
    /* test-only: called by tests/ and by nothing in src/ (kept under their names for the tests) */
    {"cal_target", nv_cal_target, METH_VARARGS, "test-only: the logistic fit's pass in use (base, v3, v4); with a name, use it."},
    {"walk_target", nv_walk_target, METH_VARARGS, "test-only: the replicate walk in use (base, v3, v4); with a name, use it."},
    {"mantissa_bits", nv_mantissa_bits, METH_NOARGS, "test-only: significand bits of long double (64 for x87)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, .m_name = "_native", .m_size = -1, .m_methods = methods,
    .m_doc = "perfeval's compiled kernels: the classic command's x87 arithmetic, reader and sort, and the "
             "modern engine's summaries, orders, resampling and readers (csrc/native.h)."};

PyMODINIT_FUNC PyInit__native(void)
{
    nv_walk_init();
    if (PyType_Ready(&nv_BufType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m)
        return NULL;
    Py_INCREF(&nv_BufType);
    if (PyModule_AddObject(m, "Buf", (PyObject *)&nv_BufType) < 0) {
        Py_DECREF(&nv_BufType);
        Py_DECREF(m);
        return NULL;
    }
    /* the bytes of freed mappings an evaluation leaves kept for the next (native.h) */
    if (PyModule_AddObject(m, "RETAIN", PyLong_FromSize_t(NV_RETAIN)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
