// One ECharts chart. ECharts itself (echarts-setup.ts) is loaded with the first chart on a page.
import { useEffect, useRef } from 'preact/hooks';
import type { ECharts, EChartsCoreOption } from 'echarts/core';

export interface ChartProps {
  option: EChartsCoreOption;
  height?: number;
  testId?: string;
  /** Shown on the element as data-total, for a person (and a test) to read what the chart holds. */
  total?: number;
}

export function Chart({ option, height = 280, testId, total }: ChartProps) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | undefined>(undefined);
  const latestOption = useRef(option);
  latestOption.current = option;

  useEffect(() => {
    let disposed = false;
    let cleanup = () => {};
    void import('./echarts-setup.ts').then(({ echarts }) => {
      if (disposed || !element.current) return;
      const instance = echarts.init(element.current);
      chart.current = instance;
      instance.setOption(latestOption.current, true);
      const resize = new ResizeObserver(() => instance.resize());
      resize.observe(element.current);
      cleanup = () => {
        resize.disconnect();
        instance.dispose();
      };
    });
    return () => {
      disposed = true;
      chart.current = undefined;
      cleanup();
    };
  }, []);

  useEffect(() => {
    // notMerge: a new range or scope replaces the series rather than blending with the old ones.
    chart.current?.setOption(option, true);
  }, [option]);

  return <div ref={element} class="chart" style={{ height: `${height}px` }} data-testid={testId} data-total={total} />;
}
