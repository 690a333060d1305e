// The one place the page tells the user something went wrong: the server's own words
// ({"error": "..."} says what to do), shown until dismissed, because a message that fades
// by itself is easily missed by an operator looking at the pictures.

const banner = document.getElementById('error');
const text = banner.querySelector('.banner-text');
const dismissButton = banner.querySelector('.banner-dismiss');

dismissButton.addEventListener('click', dismissError);

export function showError(message) {
  text.textContent = message;
  banner.hidden = false;
  // Restart the entry animation so a repeated error is noticed as new.
  banner.classList.remove('banner-new');
  void banner.offsetWidth;
  banner.classList.add('banner-new');
}

export function dismissError() {
  banner.hidden = true;
  text.textContent = '';
}

export function errorShown() {
  return !banner.hidden;
}
