// The dashboard's one way to say that something happened: a toast in the page's corner, read out by
// screen readers (a polite live region), gone after a few seconds or when closed. It lives above the
// pages, so a message outlives the form that caused it (a saved form is rebuilt from the saved
// values and would lose a message of its own).
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useMemo, useState } from 'preact/hooks';

export type ToastKind = 'success' | 'error';

interface Toast {
  id: number;
  message: string;
  kind: ToastKind;
}

/** Shows `message` for a few seconds. */
type ShowToast = (message: string, kind?: ToastKind) => void;

const ToastContext = createContext<ShowToast>(() => undefined);

/** How long a toast stays: long enough to read a sentence. */
const toastMs = 5000;

let nextId = 1;

export function ToastProvider({ children }: { children: ComponentChildren }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((shown) => shown.filter((toast) => toast.id !== id)), []);
  const show = useCallback<ShowToast>(
    (message, kind = 'success') => {
      const id = nextId++;
      setToasts((shown) => [...shown.slice(-2), { id, message, kind }]);
      setTimeout(() => dismiss(id), toastMs);
    },
    [dismiss],
  );
  const value = useMemo(() => show, [show]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div class="toasts" role="status" aria-live="polite" data-testid="toasts">
        {toasts.map((toast) => (
          <div key={toast.id} class={`toast ${toast.kind}`} data-testid="toast">
            <span>{toast.message}</span>
            <button type="button" class="link" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

/** The function that shows a toast. */
export function useToast(): ShowToast {
  return useContext(ToastContext);
}
