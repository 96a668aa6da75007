// One settings menu of the control bar (captions, quality, speed): a button that opens a list of
// choices, as WAI-ARIA's menu button pattern has it. The button says what it opens and what is
// chosen; the choices are `menuitemradio`s; arrows move between them, Enter or Space picks one,
// Escape closes and gives focus back to the button.

export interface MenuChoice {
  label: string;
  value: string;
}

export interface Menu {
  /** The button and its list, to put in the control bar. */
  element: HTMLElement;
  /** Replaces the choices (tracks and rungs arrive after the playlist loads); hidden when fewer than two. */
  setChoices(choices: readonly MenuChoice[], selected: string): void;
  setSelected(value: string): void;
  close(): void;
}

export function createMenu(name: string, onSelect: (value: string) => void): Menu {
  const element = document.createElement('div');
  element.className = 'menu';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'menu-button';
  button.setAttribute('aria-haspopup', 'menu');
  button.setAttribute('aria-expanded', 'false');
  const list = document.createElement('div');
  list.setAttribute('role', 'menu');
  list.setAttribute('aria-label', name);
  list.hidden = true;
  element.append(button, list);
  let choices: readonly MenuChoice[] = [];
  let selected = '';

  const items = () => Array.from(list.children) as HTMLButtonElement[];
  const render = () => {
    const current = choices.find((choice) => choice.value === selected);
    button.textContent = current ? `${name}: ${current.label}` : name;
    button.setAttribute('aria-label', button.textContent);
    for (const item of items()) item.setAttribute('aria-checked', String(item.dataset.value === selected));
  };
  const close = () => {
    list.hidden = true;
    button.setAttribute('aria-expanded', 'false');
  };
  const open = () => {
    list.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    (items().find((item) => item.dataset.value === selected) ?? items()[0])?.focus();
  };

  button.addEventListener('click', () => (list.hidden ? open() : close()));
  list.addEventListener('keydown', (event) => {
    const all = items();
    const at = all.indexOf(event.target as HTMLButtonElement);
    const step = { ArrowDown: 1, ArrowUp: -1 }[event.key];
    if (step !== undefined) all[(at + step + all.length) % all.length]?.focus();
    else if (event.key === 'Home') all[0]?.focus();
    else if (event.key === 'End') all.at(-1)?.focus();
    else if (event.key === 'Escape' || event.key === 'Tab') {
      close();
      if (event.key === 'Escape') button.focus();
    } else return;
    // The player's own keys (arrows seek) do not apply inside an open menu.
    event.preventDefault();
    event.stopPropagation();
  });

  return {
    element,
    setChoices(next, value) {
      choices = next;
      selected = value;
      list.replaceChildren(
        ...next.map((choice) => {
          const item = document.createElement('button');
          item.type = 'button';
          item.setAttribute('role', 'menuitemradio');
          item.dataset.value = choice.value;
          item.textContent = choice.label;
          item.addEventListener('click', () => {
            selected = choice.value;
            render();
            close();
            button.focus();
            onSelect(choice.value);
          });
          return item;
        }),
      );
      element.hidden = next.length < 2;
      render();
    },
    setSelected(value) {
      selected = value;
      render();
    },
    close,
  };
}
