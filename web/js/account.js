// The signed-in account, kept in this browser (localStorage): its name and key. The
// key is a device credential (docs/accounts.md): whoever holds it plays as the account,
// so it is shown only when asked for ("copy my key").

const KEY = "gamehost.account";

/** {name, key} of the account signed in here, or null. */
export function signedIn() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "null");
    return saved && saved.name && saved.key ? saved : null;
  } catch {
    return null;
  }
}

export function signIn(name, key) {
  localStorage.setItem(KEY, JSON.stringify({ name, key }));
  showAccount();
}

export function signOut() {
  localStorage.removeItem(KEY);
  showAccount();
}

/** The key to send with joins ("" when nobody is signed in). */
export function accountKey() {
  return signedIn()?.key || "";
}

/** The top bar's account link: "Sign in", or the name signed in. */
export function showAccount() {
  const link = document.getElementById("account-link");
  if (!link) return;
  const account = signedIn();
  link.textContent = account ? account.name : "Sign in";
  link.dataset.account = account ? account.name : "";
}
