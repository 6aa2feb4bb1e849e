// mend review: keys for the whole flow without a mouse. On the list, j and
// k move between the rows and Enter opens one; on an adaptation, j and k go
// to the next and previous one, a takes the focus to Approve (Enter or
// Space then approves) and r to the reason for rejecting. Everything works
// without this script: the keys only move the focus or follow links.
// Pointing at a line of the aligned sub-trees marks it and its pair on the
// other side, and each frame is scrolled to its selection again once loaded.
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
  const follow = (selector) => {
    const link = document.querySelector(selector);
    if (link) link.click();
  };
  const focus = (selector) => {
    const element = document.querySelector(selector);
    if (element) element.focus();
  };
  const link = (pair, on) => {
    document.querySelectorAll(`ol.tree li[data-pair="${pair}"]`)
      .forEach((line) => line.classList.toggle("linked", on));
  };
  document.querySelectorAll("ol.tree li[data-pair]").forEach((line) => {
    line.addEventListener("mouseenter", () => link(line.dataset.pair, true));
    line.addEventListener("mouseleave", () => link(line.dataset.pair, false));
  });
  // A frame scrolls to its selection when it first lays out; a page that
  // lays out again after that (a late style, a tall table above) leaves it
  // elsewhere, so the fragment is asked for once more when the frame has
  // loaded. The same address with its fragment is a scroll, not a reload.
  document.querySelectorAll(".pages iframe").forEach((frame) => {
    frame.addEventListener("load", () => {
      if (frame.dataset.scrolled) return;
      frame.dataset.scrolled = "1";
      frame.src = frame.getAttribute("src");
    });
  });
  document.addEventListener("keydown", (e) => {
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (rows.length > 0) {
      if (e.key === "j") select(current + 1);
      else if (e.key === "k") select(current - 1);
      else if (e.key === "Enter" && current >= 0) {
        const link = rows[current].querySelector("a");
        if (link) link.click();
      }
      return;
    }
    if (e.key === "j") follow("a#next");
    else if (e.key === "k") follow("a#previous");
    else if (e.key === "a") focus("form#approve button");
    else if (e.key === "r") {
      e.preventDefault();
      focus("textarea#reason");
    }
  });
});
