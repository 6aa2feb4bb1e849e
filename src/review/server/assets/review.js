// mend review: keyboard moves between the rows of the list (j and k) and
// opens one (Enter). Everything else works without this script.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const rows = Array.from(document.querySelectorAll("tr.row"));
  let current = -1;
  const select = (i) => {
    if (rows.length === 0) return;
    if (current >= 0) rows[current].classList.remove("current");
    current = Math.max(0, Math.min(rows.length - 1, i));
    rows[current].classList.add("current");
    rows[current].setAttribute("tabindex", "-1");
    rows[current].focus();
  };
  document.addEventListener("keydown", (e) => {
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "j") select(current + 1);
    else if (e.key === "k") select(current - 1);
    else if (e.key === "Enter" && current >= 0) {
      const link = rows[current].querySelector("a");
      if (link) link.click();
    }
  });
});
