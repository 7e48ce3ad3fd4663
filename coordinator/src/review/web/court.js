// Keyboard shortcuts for the review form. Every input carries its key in
// data-key; a rating's questions take 1-9 in turn, the first unanswered
// one being active. Enter sends the form. The page works without this.
(function () {
  "use strict";
  var form = document.getElementById("review");
  if (!form) { return; }
  function active() {
    var sets = form.querySelectorAll("fieldset.question");
    for (var i = 0; i < sets.length; i++) {
      if (!sets[i].querySelector("input:checked")) { return sets[i]; }
    }
    return null;
  }
  function mark() {
    var sets = form.querySelectorAll("fieldset.question");
    var now = active();
    for (var i = 0; i < sets.length; i++) {
      sets[i].classList.toggle("active", sets[i] === now);
    }
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    if (e.key === "Enter") { e.preventDefault(); form.requestSubmit(); return; }
    var key = e.key.toLowerCase();
    if (!/^[a-z0-9]$/.test(key)) { return; }
    var scope = form.querySelector("fieldset.question") ? active() : form;
    if (!scope) { return; }
    var input = scope.querySelector('input[data-key="' + key + '"]');
    if (input) { e.preventDefault(); input.checked = true; mark(); }
  });
  form.addEventListener("change", mark);
  mark();
})();
