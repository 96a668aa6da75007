// One ECharts chart. ECharts is imported piece by piece (echarts/core plus the bar and pie charts,
// the canvas renderer and three components), so the bundle holds only what the pages draw.
import { useEffect, useRef } from 'preact/hooks';
import * as echarts from 'echarts/core';
import { BarChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { EChartsCoreOption } from 'echarts/core';

echarts.use([BarChart, PieChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export interface ChartProps {
  option: EChartsCoreOption;
  height?: number;
  testId?: string;
  /** Shown on the element as data-total, for a person (and a test) to read what the chart holds. */
  total?: number;
}

export function Chart({ option, height = 280, testId, total }: ChartProps) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | undefined>(undefined);

  useEffect(() => {
    const instance = echarts.init(element.current!);
    chart.current = instance;
    const resize = new ResizeObserver(() => instance.resize());
    resize.observe(element.current!);
    return () => {
      resize.disconnect();
      instance.dispose();
      chart.current = undefined;
    };
  }, []);

  useEffect(() => {
    // notMerge: a new range or scope replaces the series rather than blending with the old ones.
    chart.current?.setOption(option, true);
  }, [option]);

  return <div ref={element} class="chart" style={{ height: `${height}px` }} data-testid={testId} data-total={total} />;
}
