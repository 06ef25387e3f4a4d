/* schema.c -- the sweep CSV's header; see schema.h. */
#include "schema.h"

#include <string.h>

const char SWEEP_HEADER[] =
    "experiment,filter,hash,scheme,keys,m,n,k,bits_per_item,trials,queries,"
    "false_positives,fpr,fpr_lo,fpr_hi,fpr_se,fpr_classic,fpr_exact,"
    "fill,fill_sd,fill_expected,z,ns_insert,ns_query,"
    "fpr_finite,fpr_approx,fill_sd_expected,k_opt,memory_bytes,measure,deletes,"
    "present_queries,false_negatives,saturations,bad_deletes,sizing,p_target,fpr_filter_var,"
    "k_best,fpr_se_trials,fpr_se_trials_df,dispersion,dispersion_p_over,dispersion_flag,"
    "fpr_conditional,z_query,z_filter,seeds,seed,cell";

const char *row_field_from_end(const char *row, int from_end)
{
    const char *p = row + strlen(row);
    for (int commas = 0; p > row; p--)
        if (p[-1] == ',' && commas++ == from_end)
            return p;
    return row;
}
