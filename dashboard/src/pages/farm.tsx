export function FarmPage() {
  return (
    <section>
      <h1>Farm</h1>
    </section>
  );
}
