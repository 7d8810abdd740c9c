// Buttons marked data-print open the browser's print dialog (the page has print styles).
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-print]");
  if (button) {
    event.preventDefault();
    window.print();
  }
});
