/* report.c — DAG_REPORT=run.html: one self-contained page about the run,
 * written by rank 0 at the end from the run's (merged) trace: the page
 * (report.html, compiled in) with the trace put in place of its TRACE line,
 * as a JSON script element that its own script reads. It opens offline in
 * any browser.
 */
#include "obs/trace.h"

#include <string.h>

extern const unsigned char dag__report_page[];
extern const size_t dag__report_page_size;

/* Copies the trace into the page. A "</" could end the script element
 * early: it goes as "<\/", the same string in JSON. */
static void put_trace(FILE *out, FILE *trace) {
  int c, previous = 0;
  while ((c = fgetc(trace)) != EOF) {
    if (previous == '<' && c == '/')
      fputc('\\', out);
    fputc(c, out);
    previous = c;
  }
}

void dag__report_write(const char *report, const char *trace_path) {
  FILE *trace = fopen(trace_path, "r");
  FILE *out = trace ? fopen(report, "w") : NULL;
  if (!out) {
    dag__user_error(NULL, DAG_EINVAL, "DAG_REPORT: cannot write '%s' from '%s'",
                    report, trace_path);
    if (trace)
      fclose(trace);
    return;
  }
  static const char marker[] = "<!-- TRACE -->";
  const char *page = (const char *)dag__report_page;
  const char *at =
      memmem(page, dag__report_page_size, marker, sizeof marker - 1);
  size_t before = at ? (size_t)(at - page) : dag__report_page_size;
  fwrite(page, 1, before, out);
  fputs("<script id=\"trace\" type=\"application/json\">", out);
  put_trace(out, trace);
  fputs("</script>", out);
  if (at)
    fwrite(at + sizeof marker - 1, 1,
           dag__report_page_size - before - (sizeof marker - 1), out);
  fclose(trace);
  fclose(out);
}
