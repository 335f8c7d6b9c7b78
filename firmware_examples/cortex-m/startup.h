/* startup.h -- what startup.c offers main.c: semihosting output and exit. */
#ifndef TG_STARTUP_H
#define TG_STARTUP_H

void tg_write(const char *text);
void tg_exit(int status);

#endif
