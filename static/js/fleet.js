// Vehicle pages: a button marked data-print opens the browser's print dialog (the QR sticker
// sheet has print styles: six stickers per A4).
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-print]");
  if (button) {
    event.preventDefault();
    window.print();
  }
});
