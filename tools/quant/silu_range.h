/* silu_range.h — the int8 range of a conv output that only a SiLU reads.
 *
 * yolort fuses Conv + SiLU into one int8 conv whose output pass maps the conv's int8 output y
 * through a 256-entry table to the SiLU's int8 output z. y's range is only an index range for that
 * table, so it need not hold what the table cannot tell apart: below the x where |silu(x)| falls
 * under a quarter of z's step every y gives z's zero point, and above silu^-1(z_hi) every y gives
 * z's largest value. Calibrated ranges of y are roughly symmetric ([-43, 44] after the first conv
 * of YOLO11n, whose SiLU output is [-0.17, 44]); cutting the dead negative part there halves y's
 * step at no cost, and y's rounding is, with z's, the largest error of an int8 SiLU layer. */
#ifndef YOLORT_SILU_RANGE_H
#define YOLORT_SILU_RANGE_H

/* Narrows [*lo, *hi] (a calibrated range of y) for a SiLU whose int8 output has step z_scale and
 * largest value z_hi. Never widens it; keeps 0 inside. */
void silu_input_range(double z_scale, double z_hi, double *lo, double *hi);

#endif /* YOLORT_SILU_RANGE_H */
