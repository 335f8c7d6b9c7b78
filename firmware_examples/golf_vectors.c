/* golf_vectors.c -- four golf days as test vectors for the firmware examples' main.c,
   the default VECTORS of both Makefiles.  It fits the golf model exported with
   --prefix model and float input (the default):

       treegen train tests/data/reference/golf/golf.names -o golf.tree
       treegen export golf.tree --prefix model --name predict -o build

   Each row is x[MODEL_N_FEATURES] as predict_() takes it: nominal values are their
   codes (predict.h names them), a missing value is NaN.  `treegen verify --on`
   writes a file like this one with every threshold's neighbours, missing values and
   random rows, for any model. */
#include "predict.h"
#if defined(__AVR__)
#include <avr/pgmspace.h>
#define TG_FLASH PROGMEM /* on AVR, keep the rows in flash, not in the 2 KiB of SRAM */
#else
#define TG_FLASH
#endif

const uint16_t tg_n_vectors = 4u;
const uint32_t tg_first_index = 0ul;
const model_input_t tg_vectors[4][MODEL_N_FEATURES] TG_FLASH = {
    /* outlook, temperature, humidity, windy */
    {MODEL_OUTLOOK_SUNNY, 85.0f, 85.0f, MODEL_WINDY_FALSE},     /* Don't Play */
    {MODEL_OUTLOOK_OVERCAST, 83.0f, 78.0f, MODEL_WINDY_FALSE},  /* Play */
    {MODEL_OUTLOOK_RAIN, 65.0f, 70.0f, MODEL_WINDY_TRUE},       /* Don't Play */
    {MODEL_OUTLOOK_SUNNY, 72.0f, __builtin_nanf(""), MODEL_WINDY_TRUE}, /* humidity unknown */
};
