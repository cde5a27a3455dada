/* census.h — what a YOLO model is made of: operators by block (backbone / neck / head), fusable
 * patterns, and the operators whose int8 versions are known to hurt accuracy. Works on the IR of
 * a float or QDQ model (after constant folding and shape inference). */
#ifndef YOLORT_CENSUS_H
#define YOLORT_CENSUS_H

#include <stdio.h>

#include "ir.h"

/* Block of a node from its Ultralytics name "/model.<k>/...": 0 backbone, 1 neck, 2 head,
 * -1 unknown. The head is the highest k; the backbone ends at the block holding SPPF's MaxPool or
 * C2PSA's MatMul, whichever comes later. */
int census_block_of(const ir_graph *g, int node, int *last_backbone, int *head_k);

/* Prints the census to f. */
void census_print(const ir_graph *g, FILE *f);

#endif
