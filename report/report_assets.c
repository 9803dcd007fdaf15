/*
 * report_assets.c: the report's page script and styles (web/report.js,
 * web/report.css) and the charting library it draws with (uPlot, in
 * web/vendor with its licence), built into the program so that a report
 * is written anywhere and its page needs nothing from outside. Each file
 * is a NUL-ended string; the Makefile rebuilds this object when one
 * changes (the assembler's .incbin escapes the compiler's -MMD).
 */
#define ASSET(name, path) \
	__asm__(".pushsection .rodata\n" \
		".global " #name "\n" \
		".type " #name ", @object\n" \
		".balign 16\n" \
		#name ":\n" \
		".incbin \"" path "\"\n" \
		".byte 0\n" \
		".size " #name ", . - " #name "\n" \
		".popsection\n")

ASSET(report_js, "web/report.js");
ASSET(report_css, "web/report.css");
ASSET(uplot_js, "web/vendor/uPlot.iife.min.js");
ASSET(uplot_css, "web/vendor/uPlot.min.css");
ASSET(uplot_license, "web/vendor/uPlot.LICENSE");
